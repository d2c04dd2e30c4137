package io.github.idworker.spring.entity.mybatis;

import io.github.idworker.spring.entity.EntityIdFiller;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.mapping.SqlCommandType;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A MyBatis plugin that gives every entity an {@code INSERT} statement receives an ID in its empty
 * {@link io.github.idworker.spring.entity.GeneratedId} fields before the statement runs, so the SQL and
 * {@code #{id}} see it; an ID the application set is kept. It guarantees that no other statement type is touched.
 * Spring Boot's MyBatis auto-configuration adds it to the {@code SqlSessionFactory} when it is a bean (the starter
 * declares it); otherwise add it with {@code Configuration.addInterceptor}.
 *
 * <p>Steps: intercept {@code Executor.update} (used by the simple, reuse and batch executors alike); when the
 * statement is an {@code INSERT}, collect the entities of its parameter — the object itself, the elements of a
 * {@code Collection} or array, and the values of a parameter map ({@code @Param}, {@code list}, {@code collection})
 * one level down — and fill them all in one {@link EntityIdFiller#fillAll(Iterable)}, so a list insert draws its
 * IDs in one {@code nextIds} call per source.
 */
@Intercepts(@Signature(type = Executor.class, method = "update", args = {MappedStatement.class, Object.class}))
public class GeneratedIdInterceptor implements Interceptor {

    private final EntityIdFiller filler;

    /** @param filler fills the entities' ID fields */
    public GeneratedIdInterceptor(EntityIdFiller filler) {
        this.filler = filler;
    }

    @Override
    public Object intercept(Invocation invocation) throws Throwable {
        Object[] args = invocation.getArgs();
        MappedStatement statement = (MappedStatement) args[0];
        if (statement.getSqlCommandType() == SqlCommandType.INSERT && args[1] != null) {
            filler.fillAll(entitiesOf(args[1]));
        }
        return invocation.proceed();
    }

    private static List<Object> entitiesOf(Object parameter) {
        List<Object> out = new ArrayList<>();
        if (parameter instanceof Map<?, ?> map) {
            // MyBatis names one argument several times (list, collection, param1): EntityIdFiller counts each once
            for (Object value : map.values()) {
                addFlat(value, out);
            }
        } else {
            addFlat(parameter, out);
        }
        return out;
    }

    private static void addFlat(@Nullable Object value, List<Object> out) {
        if (value instanceof Collection<?> c) {
            out.addAll(c);
        } else if (value instanceof Object[] array) {
            out.addAll(Arrays.asList(array));
        } else if (value != null && !(value instanceof Map<?, ?>)) {
            out.add(value);
        }
    }
}

package io.github.idworker.spring.entity.mybatis;

import io.github.idworker.spring.entity.EntityIdFiller;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.executor.keygen.KeyGenerator;
import org.apache.ibatis.executor.keygen.NoKeyGenerator;
import org.apache.ibatis.executor.keygen.SelectKeyGenerator;
import org.apache.ibatis.mapping.BoundSql;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.mapping.ParameterMapping;
import org.apache.ibatis.mapping.ParameterMode;
import org.apache.ibatis.mapping.SqlCommandType;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;
import org.apache.ibatis.reflection.MetaObject;
import org.apache.ibatis.session.Configuration;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A MyBatis plugin that gives every entity an {@code INSERT} statement receives an ID in its empty
 * {@link io.github.idworker.spring.entity.GeneratedId} fields before the statement runs, so the SQL and
 * {@code #{id}} see it; an ID the application set is kept. It guarantees that no other statement type is touched,
 * and that an insert whose stored or returned IDs would not be the filled ones is refused before it runs, with an
 * {@link InsertRefusedException}. Spring Boot's MyBatis auto-configuration adds it to the {@code SqlSessionFactory}
 * when it is a bean (the starter declares it); otherwise add it with {@code Configuration.addInterceptor}.
 *
 * <p>Steps: intercept {@code Executor.update} (used by the simple, reuse and batch executors alike); when the
 * statement is an {@code INSERT}:
 * <ol>
 *   <li>Collect the entities of its parameter — the object itself, the elements of a {@code Collection} or array,
 *       and the values of a parameter map ({@code @Param}, {@code list}, {@code collection}) one level down, and
 *       the elements of such a value that is a collection or array.</li>
 *   <li>Refuse it when it writes generated keys back ({@code useGeneratedKeys} or {@code <selectKey>}) into a
 *       property whose last segment ({@code id} of {@code list.id}, {@code et.id}) is an ID field of one of those
 *       entities: the driver's keys would replace the filled IDs in memory.</li>
 *   <li>Refuse it when the SQL binds ({@code #{…}}) an empty ID field of an entity not collected in step 1, one
 *       inside a parameter object ({@code batch.orders}): it would insert a null ID. Only the properties the SQL
 *       names are followed, never an object's other fields.</li>
 *   <li>Fill the collected entities in one {@link EntityIdFiller#fillAll(Iterable)}, so a list insert draws its
 *       IDs in one {@code nextIds} call per source.</li>
 * </ol>
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
        Object parameter = args[1];
        if (statement.getSqlCommandType() == SqlCommandType.INSERT && parameter != null) {
            List<Object> entities = entitiesOf(parameter);
            refuseKeysWrittenBack(statement, entities);
            refuseUnreached(statement, parameter, entities);
            filler.fillAll(entities);
        }
        return invocation.proceed();
    }

    private void refuseKeysWrittenBack(MappedStatement statement, List<Object> entities) {
        Set<String> written = keyPropertiesWrittenBack(statement);
        if (written.isEmpty()) {
            return;
        }
        Set<Class<?>> seen = new LinkedHashSet<>();
        for (Object entity : entities) {
            if (entity == null || !seen.add(entity.getClass())) {
                continue;
            }
            for (String field : filler.idFieldNames(entity.getClass())) {
                for (String property : written) {
                    if (property.substring(property.lastIndexOf('.') + 1).equals(field)) {
                        throw new InsertRefusedException(statement.getId(), entity.getClass().getName() + "." + field,
                                "INSERT " + statement.getId() + " writes generated keys back into '" + property
                                + "', which is the ID field " + entity.getClass().getName() + "." + field + " filled "
                                + "by idworker: the driver's keys would replace the filled IDs in memory (for a "
                                + "multi-row insert some drivers report the first key and count up), so the entities "
                                + "could hold IDs that are not their rows'; drop useGeneratedKeys (or the "
                                + "<selectKey>) from this statement, or its keyProperty");
                    }
                }
            }
        }
    }

    /** The properties the statement's key generator writes into after (or before) it runs; empty for none. */
    private static Set<String> keyPropertiesWrittenBack(MappedStatement statement) {
        KeyGenerator keys = statement.getKeyGenerator();
        Set<String> out = new LinkedHashSet<>();
        // any key generator but MyBatis's no-op one writes into its key properties (a custom one included)
        if (keys != null && !(keys instanceof NoKeyGenerator)) {
            addAll(statement.getKeyProperties(), out);
        }
        if (keys instanceof SelectKeyGenerator) {
            // a <selectKey> writes into its own statement's keyProperty; MyBatis registers it under this suffix
            String id = statement.getId() + SelectKeyGenerator.SELECT_KEY_SUFFIX;
            Configuration configuration = statement.getConfiguration();
            if (configuration.hasStatement(id, false)) {
                addAll(configuration.getMappedStatement(id, false).getKeyProperties(), out);
            }
        }
        return out;
    }

    private static void addAll(String @Nullable [] properties, Set<String> out) {
        if (properties != null) {
            for (String p : properties) {
                out.add(p.trim());
            }
        }
    }

    private void refuseUnreached(MappedStatement statement, Object parameter, List<Object> entities) {
        Set<Object> reached = Collections.newSetFromMap(new IdentityHashMap<>());
        reached.addAll(entities);
        BoundSql sql = statement.getBoundSql(parameter);
        MetaObject meta = null;
        for (ParameterMapping mapping : sql.getParameterMappings()) {
            String property = mapping.getProperty();
            int dot = property.lastIndexOf('.');
            if (mapping.getMode() == ParameterMode.OUT || dot <= 0) {
                continue; // no dot: the parameter itself or a value of its map, both reached
            }
            String path = property.substring(0, dot);
            String field = property.substring(dot + 1);
            Object owner;
            try {
                if (sql.hasAdditionalParameter(path)) {
                    owner = sql.getAdditionalParameter(path); // a <foreach> item or a <bind>
                } else {
                    meta = meta != null ? meta : statement.getConfiguration().newMetaObject(parameter);
                    owner = meta.getValue(path);
                }
            } catch (RuntimeException e) {
                continue; // MyBatis reports a path it cannot follow when it binds the parameters
            }
            if (owner != null && !reached.contains(owner) && filler.hasEmptyIdField(owner, field)) {
                throw new InsertRefusedException(statement.getId(), owner.getClass().getName() + "." + field,
                        "INSERT " + statement.getId() + " binds #{" + property + "}, the empty ID field "
                        + owner.getClass().getName() + "." + field + " of an entity idworker does not fill: it "
                        + "fills the parameter itself, the elements of a collection or array, and the values of "
                        + "the parameter map (@Param) with their elements, not entities inside another object; "
                        + "pass the entities or their list as a parameter (@Param(\"orders\") List<Order>), or "
                        + "set their IDs before the insert");
            }
        }
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

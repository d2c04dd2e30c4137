package io.github.idworker.spring.entity;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import io.github.idworker.snowflake.AbstractIdWorker;
import org.springframework.beans.factory.ListableBeanFactory;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;

/**
 * {@link IdSources} over the beans of a Spring application context. A name is looked up on its first use, not at
 * startup, so an entity may name a generator whose bean is created after the integration that fills it (MyBatis
 * interceptors and Hibernate are built early); the generator found is kept for the name. It guarantees that a
 * name is never resolved to a generator other than the one its form names.
 *
 * <p>Steps of a lookup:
 * <ol>
 *   <li>{@code snowflake}: the one {@link AbstractIdWorker} bean (the worker of the enabled mode).</li>
 *   <li>{@code segment:<tag>}: the one {@link SegmentIdGenerators} bean, asked for that tag on every call (so an
 *       unknown tag is dropped from the lookup again, as {@link SegmentIdGenerators#nextId(String)} does).</li>
 *   <li>{@code sequence:<tag>}: the one {@link RedisSequenceGenerators} bean, likewise.</li>
 *   <li>Otherwise the {@link IdGenerator} bean of that name.</li>
 * </ol>
 * Nothing found: an {@link IdWorkerConfigurationException} naming the source, what was missing and the forms a
 * name may take; several beans of the type and none primary: an {@link AmbiguousIdSourceException} naming them.
 */
public final class SpringIdSources implements IdSources {

    private static final String FORMS = SourceNames.FORMS;

    private final ListableBeanFactory beans;
    private final Map<String, IdGenerator> found = new ConcurrentHashMap<>();

    /** @param beans the application context (or its bean factory) whose generators the names stand for */
    public SpringIdSources(ListableBeanFactory beans) {
        this.beans = beans;
    }

    @Override
    public IdGenerator get(String name) {
        IdGenerator g = found.get(name);
        if (g == null) {
            // not computeIfAbsent: the lookup may create beans, which may in turn use this object
            g = resolve(name);
            IdGenerator earlier = found.putIfAbsent(name, g);
            g = earlier != null ? earlier : g;
        }
        return g;
    }

    private IdGenerator resolve(String name) {
        String malformed = SourceNames.malformed(name);
        if (malformed != null) {
            throw new IdWorkerConfigurationException("generator", malformed);
        }
        if (name.startsWith(SEGMENT_PREFIX)) {
            String tag = name.substring(SEGMENT_PREFIX.length());
            SegmentIdGenerators lookup = unique(SegmentIdGenerators.class, name, "@EnableSegmentIdGenerators");
            return new TagGenerator(tag, lookup::nextId, lookup::nextIds);
        }
        if (name.startsWith(SEQUENCE_PREFIX)) {
            String tag = name.substring(SEQUENCE_PREFIX.length());
            RedisSequenceGenerators lookup = unique(RedisSequenceGenerators.class, name,
                    "@EnableSegmentIdGenerators(redisSequences = true)");
            return new TagGenerator(tag, lookup::nextId, lookup::nextIds);
        }
        if (SNOWFLAKE.equals(name)) {
            return unique(AbstractIdWorker.class, name, "@EnableIdWorker");
        }
        if (beans.containsBean(name) && beans.isTypeMatch(name, IdGenerator.class)) {
            return beans.getBean(name, IdGenerator.class);
        }
        throw new IdWorkerConfigurationException("generator", "ID source '" + name + "' names no generator of this "
                + "application (no IdGenerator bean of that name); " + FORMS);
    }

    private <T> T unique(Class<T> type, String name, String enabledBy) {
        T bean = beans.getBeanProvider(type).getIfUnique();
        if (bean != null) {
            return bean;
        }
        // getIfUnique answers null for none and for several without a primary one: tell the two apart, or a
        // second worker built by hand would be reported as a missing @EnableIdWorker
        String[] names = beans.getBeanNamesForType(type);
        if (names.length > 0) {
            throw new AmbiguousIdSourceException(name, type, List.of(names));
        }
        throw new IdWorkerConfigurationException("generator", "ID source '" + name + "' needs exactly one "
                + type.getSimpleName() + " bean, found 0; add " + enabledBy + " to the application; " + FORMS);
    }

    /** The generator of one tag of a lookup, going through the lookup on each call. */
    private record TagGenerator(String tag, ToLongFunction<String> single,
                                BiFunction<String, Integer, long[]> batch) implements IdGenerator {

        @Override
        public long nextId() {
            return single.applyAsLong(tag);
        }

        @Override
        public long[] nextIds(int count) {
            return batch.apply(tag, count);
        }
    }
}

package io.github.idworker.spring.entity;

import io.github.idworker.IdGenerator;

/**
 * Finds the generator an ID source name stands for, so that every integration that fills entity IDs (MyBatis,
 * Spring Data JDBC, Hibernate) understands the same names:
 *
 * <ul>
 *   <li>{@value #SNOWFLAKE}: the application's snowflake worker ({@code @EnableIdWorker});</li>
 *   <li>{@value #SEGMENT_PREFIX}{@code <tag>}: the in-process segment generator of a tag
 *       ({@code @EnableSegmentIdGenerators});</li>
 *   <li>{@value #SEQUENCE_PREFIX}{@code <tag>}: the Redis sequence of a tag
 *       ({@code @EnableSegmentIdGenerators(redisSequences = true)});</li>
 *   <li>any other name: the {@link IdGenerator} bean of that name.</li>
 * </ul>
 *
 * Implementations are thread-safe and return, for one name, a generator that hands out unique IDs for the life of
 * the application.
 */
@FunctionalInterface
public interface IdSources {

    /** The name of the snowflake worker, and the default of every annotation that names a source. */
    String SNOWFLAKE = "snowflake";

    /** Prefix of a segment tag's name: {@code segment:order}. */
    String SEGMENT_PREFIX = "segment:";

    /** Prefix of a Redis sequence's name: {@code sequence:ticket}. */
    String SEQUENCE_PREFIX = "sequence:";

    /**
     * The generator that {@code name} stands for.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException when nothing of that name exists, naming what was
     *         looked for and the forms a name may take; an {@link AmbiguousIdSourceException} when several beans
     *         could serve it and none is the default
     */
    IdGenerator get(String name);
}

package io.github.idworker.spring.annotation;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers segment-mode generators addressed by business tag, configured by the {@code idworker.segment.*}
 * properties: dense, increasing numbers (order numbers, tickets) handed out from ranges of one table row per
 * tag in the application's single {@code DataSource}.
 *
 * <pre class="code">
 * &#64;SpringBootApplication
 * &#64;EnableSegmentIdGenerators(redisSequences = true)
 * public class Application { }
 *
 * &#64;Service
 * class Orders {
 *     Orders(SegmentIdGenerators segments, RedisSequenceGenerators sequences) { … }
 *     long orderNo()  { return segments.nextId("order"); }     // in process, fastest
 *     long ticketNo() { return sequences.nextId("ticket"); }   // one order across all nodes
 * }
 * </pre>
 *
 * <ul>
 *   <li>Always: bean {@code segmentAllocator} (a {@link io.github.idworker.segment.jdbc.JdbcSegmentAllocator}
 *       over the {@code DataSource}) and bean {@code segmentIdGenerators}
 *       ({@link io.github.idworker.segment.SegmentIdGenerators}): one in-process
 *       {@link io.github.idworker.segment.SegmentIdGenerator} per tag, double-buffered. Numbers are unique
 *       across nodes and increase per node; a restart continues above everything issued before.</li>
 *   <li>With {@link #redisSequences()}: bean {@code redisSequenceGenerators}
 *       ({@link io.github.idworker.segment.redis.RedisSequenceGenerators}): one
 *       {@link io.github.idworker.segment.redis.RedisSegmentIdGenerator} per tag over the application's
 *       {@code RedisConnectionFactory}. Numbers are unique and strictly increase in the order calls reach Redis,
 *       across all nodes; each call is one Redis round trip.</li>
 * </ul>
 *
 * Each bean backs off when the application declares a bean of the same name. Tags listed under
 * {@code idworker.segment.tags} are registered at startup; others are created on first use only with
 * {@code idworker.segment.auto-create=true}, and otherwise fail with
 * {@link io.github.idworker.segment.UnknownSegmentTagException}. Generators are closed with the context.
 *
 * <p>Independent of {@link EnableIdWorker}: use either, or both.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(SegmentIdGeneratorsConfigurationSelector.class)
public @interface EnableSegmentIdGenerators {

    /**
     * Whether to register the strictly ordered Redis sequences as well (bean {@code redisSequenceGenerators});
     * needs spring-data-redis and one {@code RedisConnectionFactory}.
     */
    boolean redisSequences() default false;
}

package io.github.idworker.spring.annotation;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers serial numbers (流水号) of named rules, {@code prefix + date + zero-padded number} such as
 * {@code ORD20261123000042}, configured under {@code idworker.serial.*}.
 *
 * <pre class="code">
 * &#64;SpringBootApplication
 * &#64;EnableSerialNumbers                       // SerialMode.STRICT: one stock in Redis for all nodes
 * public class Application { }
 *
 * &#64;Service
 * class Orders {
 *     Orders(SerialNumbers serials) { … }
 *     String orderNo() { return serials.next("order"); }   // ORD20261123000042
 * }
 * </pre>
 *
 * <ul>
 *   <li>Always: bean {@code serialStore} (a {@link io.github.idworker.serial.jdbc.JdbcSerialStore} over the
 *       application's single {@code DataSource}: the rule table, the source of truth, and the durable high-water
 *       of every rule and period) and bean {@code serialRules} ({@link io.github.idworker.serial.SerialRules}, the
 *       rules as last read from the table). Every rule under {@code idworker.serial.rules.<name>} is checked and
 *       registered at startup: a bad rule, or one whose prefix, date pattern, width, reset or zone differs from
 *       the table's, fails the startup naming the property.</li>
 *   <li>Bean {@code serialNumbers} ({@link io.github.idworker.serial.SerialNumbers}): a
 *       {@link io.github.idworker.serial.redis.RedisSerialNumbers} with {@link SerialMode#STRICT} (the default),
 *       a {@link io.github.idworker.serial.LocalSerialNumbers} with {@link SerialMode#LOCAL}.</li>
 * </ul>
 *
 * Whatever the mode, no string is handed out twice for a rule, across threads, nodes and restarts, and the date in
 * a string is the date it was handed out in the rule's zone. Each bean backs off when the application declares a
 * bean of the same name. Independent of {@link EnableIdWorker} and {@link EnableSegmentIdGenerators}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(SerialNumbersConfigurationSelector.class)
public @interface EnableSerialNumbers {

    /**
     * How serial numbers are handed out: {@link SerialMode#STRICT} (Redis, first come first served across nodes;
     * needs spring-data-redis) or {@link SerialMode#LOCAL} (in process, database only).
     */
    SerialMode mode() default SerialMode.STRICT;
}

package io.github.idworker.sample;

import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * A team's own order service on the idworker starter: every order gets a snowflake primary key, an order number
 * from a daily serial rule ({@code ORD20261126000001}) and an invoice number from a segment tag, none of which is
 * ever handed out twice, across threads, instances and restarts ({@link OrderService}).
 *
 * <ul>
 *   <li>No profile ({@code mvn -pl idworker-sample spring-boot:run}): the worker leases its id from Redis
 *       ({@link RedisIdWorker}) and serial numbers come from one stock in Redis, first come first served across
 *       instances. {@link EmbeddedRedisInitializer} starts that Redis in this JVM; H2 runs in memory.</li>
 *   <li>Profile {@code db}: no Redis at all. The worker leases its id from the database ({@link DBIdWorker})
 *       through this application's own MyBatis centre ({@link MyBatisSequenceManagerConfig}), and serial numbers
 *       come from in-process ranges ({@link SerialMode#LOCAL}): unique, increasing per instance.</li>
 * </ul>
 *
 * Segments are the same in both: in-process ranges from the table {@code idworker_segment}. idworker creates its
 * tables on the embedded H2 itself; {@code schema.sql} adds the application's own.
 */
@SpringBootApplication
@EnableSegmentIdGenerators
public class IdWorkerSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(IdWorkerSampleApplication.class, args);
    }

    /**
     * The default: Redis for the worker's lease and for serial numbers. The annotations sit on a nested class
     * because a profile on the application class would switch off the whole application.
     */
    @Configuration(proxyBeanMethods = false)
    @Profile("!db")
    @EnableIdWorker(mode = CenterMode.REDIS)
    @EnableSerialNumbers
    static class WithRedis {

        @Bean
        OrderService orderService(RedisIdWorker idWorker, SerialNumbers serials, SegmentIdGenerators segments,
                                  OrderMapper orders, OrderEventMapper events) {
            return new OrderService(idWorker, serials, segments, orders, events);
        }
    }

    /** Profile {@code db}: the database for everything; the bean {@code dbSequenceManager} is the sample's own. */
    @Configuration(proxyBeanMethods = false)
    @Profile("db")
    @EnableIdWorker(mode = CenterMode.DB)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class WithDatabaseOnly {

        @Bean
        OrderService orderService(DBIdWorker idWorker, SerialNumbers serials, SegmentIdGenerators segments,
                                  OrderMapper orders, OrderEventMapper events) {
            return new OrderService(idWorker, serials, segments, orders, events);
        }
    }
}

package io.github.idworker.server;

import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdPools;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/**
 * The idworker ID server: every family of IDs over HTTP, each switchable and each, if configured, for signed
 * applications only. Configured by properties and environment variables alone ({@link IdServerProperties},
 * {@code idworker.*}, {@code spring.datasource.*}, {@code spring.data.redis.*}).
 *
 * <ul>
 *   <li>Without profile {@code demo} nothing is embedded and nothing is registered but what is configured: the
 *       database of {@code spring.datasource.url} is required ({@link ExternalDatabaseCheck}) and Redis is the one
 *       of {@code spring.data.redis.*}.</li>
 *   <li>Profile {@code demo} is the zero-setup one: an embedded Redis ({@link EmbeddedRedisInitializer}), H2 in
 *       memory, the application {@code demo}, the pool entity {@code user}, two serial rules and auto-created
 *       segment tags ({@code application-demo.yml}).</li>
 * </ul>
 *
 * Each nested configuration below turns one family on; an {@code @Enable…} annotation sits on a nested class
 * rather than on this one because a condition on this class would switch off the whole server.
 */
@SpringBootApplication
@EnableConfigurationProperties(IdServerProperties.class)
public class IdWorkerServerApplication {

    static final String SNOWFLAKE_ENABLED = IdServerProperties.FAMILIES + ".snowflake.enabled";
    static final String SEGMENT_ENABLED = IdServerProperties.FAMILIES + ".segment.enabled";
    static final String SEQUENCE_ENABLED = IdServerProperties.FAMILIES + ".sequence.enabled";
    static final String SERIAL_ENABLED = IdServerProperties.FAMILIES + ".serial.enabled";
    static final String POOL_ENABLED = IdServerProperties.FAMILIES + ".pool.enabled";
    static final String CENTRE = IdServerProperties.PREFIX + ".centre";

    public static void main(String[] args) {
        SpringApplication.run(IdWorkerServerApplication.class, args);
    }

    /** The snowflake worker leasing its id from Redis ({@code idworker.server.centre=redis}, the default). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SNOWFLAKE_ENABLED, matchIfMissing = true)
    @ConditionalOnProperty(name = CENTRE, havingValue = "redis", matchIfMissing = true)
    @EnableIdWorker(mode = CenterMode.REDIS)
    static class RedisWorker {
    }

    /** The snowflake worker leasing its id from the database ({@code idworker.server.centre=db}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SNOWFLAKE_ENABLED, matchIfMissing = true)
    @ConditionalOnProperty(name = CENTRE, havingValue = "db")
    @EnableIdWorker(mode = CenterMode.DB)
    static class DbWorker {
    }

    /** The snowflake worker leasing its id from ZooKeeper ({@code idworker.server.centre=zookeeper}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SNOWFLAKE_ENABLED, matchIfMissing = true)
    @ConditionalOnProperty(name = CENTRE, havingValue = "zookeeper")
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    static class ZookeeperWorker {
    }

    /** Segments in process and strictly ordered sequences in Redis, both over the segment table. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SEQUENCE_ENABLED, matchIfMissing = true)
    @EnableSegmentIdGenerators(redisSequences = true)
    static class SegmentsAndSequences {
    }

    /** Segments in process only, without Redis sequences. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("!${" + SEQUENCE_ENABLED + ":true} and ${" + SEGMENT_ENABLED + ":true}")
    @EnableSegmentIdGenerators
    static class SegmentsOnly {
    }

    /** Serial numbers from one stock per rule in Redis ({@code idworker.server.families.serial.mode=strict}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SERIAL_ENABLED, matchIfMissing = true)
    @ConditionalOnProperty(name = IdServerProperties.FAMILIES + ".serial.mode", havingValue = "strict",
            matchIfMissing = true)
    @EnableSerialNumbers
    static class StrictSerials {
    }

    /** Serial numbers from in-process ranges, for a server without Redis ({@code …serial.mode=local}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SERIAL_ENABLED, matchIfMissing = true)
    @ConditionalOnProperty(name = IdServerProperties.FAMILIES + ".serial.mode", havingValue = "local")
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class LocalSerials {
    }

    /** ID pools in Redis, taken by signed applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = POOL_ENABLED, matchIfMissing = true)
    @EnableIdPools
    static class Pools {
    }
}

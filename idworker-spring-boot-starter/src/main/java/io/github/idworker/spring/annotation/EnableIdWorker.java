package io.github.idworker.spring.annotation;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers a leased snowflake worker configured by the {@code idworker.*} properties.
 *
 * <pre class="code">
 * &#64;SpringBootApplication
 * &#64;EnableIdWorker(mode = CenterMode.REDIS)
 * public class Application { }
 * </pre>
 *
 * <ul>
 *   <li>{@link CenterMode#DB} (default): beans {@code dbSequenceManager} and {@code dbIdWorker}
 *       ({@link io.github.idworker.snowflake.DBIdWorker}) over the application's single {@code DataSource}.</li>
 *   <li>{@link CenterMode#REDIS}: beans {@code redisSequenceManager} and {@code redisIdWorker}
 *       ({@link io.github.idworker.snowflake.RedisIdWorker}) over the application's {@code RedisConnectionFactory}.</li>
 *   <li>{@link CenterMode#ZOOKEEPER}: beans {@code zookeeperSequenceManager} and {@code zookeeperIdWorker}
 *       ({@code io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker}) over the application's
 *       {@code CuratorFramework}, or a client of {@code idworker.zookeeper.*} when it has none.</li>
 * </ul>
 *
 * A bean of your own named {@code dbSequenceManager}, {@code redisSequenceManager} or {@code zookeeperSequenceManager} (any
 * {@link io.github.idworker.lease.ISequenceManager}) replaces the default one and is the one the worker uses.
 * An {@code ISequenceManager} bean under any other name (or the name of a mode that is not enabled) fails the
 * startup naming it and the name to give it, unless it is declared {@code @Bean(autowireCandidate = false)}.
 * The worker borrows its worker id when the context starts and returns it when the context closes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(IdWorkerConfigurationSelector.class)
public @interface EnableIdWorker {

    /**
     * The centre that leases worker ids.
     */
    CenterMode mode() default CenterMode.DB;
}

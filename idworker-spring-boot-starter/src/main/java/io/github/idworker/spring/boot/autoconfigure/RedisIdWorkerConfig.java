package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The beans of {@code @EnableIdWorker(mode = CenterMode.REDIS)}: a {@link RedisSequenceManager} named
 * {@code redisSequenceManager} running its Lua scripts through a {@link SpringRedisScriptExecutor} over the
 * application's {@link RedisConnectionFactory} (backs off when the application declares a bean of that name), and
 * the {@link RedisIdWorker} named {@code redisIdWorker} that leases its worker id from whichever bean carries that
 * name.
 *
 * <p>Steps at startup: bind {@code idworker.*}; build and validate the worker's options; borrow a worker id (in a
 * Redis that never held idworker's keys, or that lost them, the first borrow waits {@code idworker.lease.loss-guard} by
 * design). Steps at shutdown: return the worker id before the Redis connection factory stops.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class RedisIdWorkerConfig {

    /** Name of the lease manager bean the worker uses; declare your own bean with this name to replace it. */
    public static final String SEQUENCE_MANAGER_BEAN = "redisSequenceManager";

    /** Name of the worker bean. */
    public static final String WORKER_BEAN = "redisIdWorker";

    @Bean(name = SEQUENCE_MANAGER_BEAN)
    @ConditionalOnMissingBean(name = SEQUENCE_MANAGER_BEAN)
    public RedisSequenceManager redisSequenceManager(ObjectProvider<RedisConnectionFactory> connectionFactories,
                                                     IdWorkerProperties properties) {
        RedisConnectionFactory connectionFactory = connectionFactories.getIfUnique();
        if (connectionFactory == null) {
            throw new IdWorkerConfigurationException("spring.data.redis.host",
                    "@EnableIdWorker(mode = CenterMode.REDIS) needs exactly one RedisConnectionFactory bean (or one "
                            + "marked @Primary), found " + connectionFactories.stream().count()
                            + "; add spring-boot-starter-data-redis and configure spring.data.redis.*, or declare an "
                            + "ISequenceManager bean named " + SEQUENCE_MANAGER_BEAN);
        }
        return new RedisSequenceManager(new SpringRedisScriptExecutor(connectionFactory),
                properties.getRedis().getKeyPrefix());
    }

    @Bean(name = WORKER_BEAN, initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean(name = WORKER_BEAN)
    public RedisIdWorker redisIdWorker(@Qualifier(SEQUENCE_MANAGER_BEAN) ISequenceManager sequenceManager,
                                       IdWorkerProperties properties, Environment environment) {
        return new RedisIdWorker(sequenceManager, WorkerOptionsFactory.create(properties, environment));
    }

    /** Returns the lease of {@code redisIdWorker} before the Redis connection factory stops. */
    @Bean
    ClosingLifecycle redisIdWorkerLifecycle(@Qualifier(WORKER_BEAN) AbstractIdWorker worker) {
        return new ClosingLifecycle(worker);
    }
}

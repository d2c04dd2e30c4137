package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolAlarmListener;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The beans of {@code @EnableIdPools}: a {@link JdbcPoolStore} named {@code poolStore} over the application's
 * single {@link DataSource} (the pool table: every entity's settings and its durable {@code current_offset}), and
 * a {@link RedisIdPools} named {@code idPools} running the pool Lua scripts through a
 * {@link SpringRedisScriptExecutor} over the application's single {@link RedisConnectionFactory} (Jedis or
 * Lettuce; no pool of its own) and reserving offsets through whichever bean is named {@code poolStore}. Each
 * backs off when the application declares a bean of that name.
 *
 * <p>Steps at startup:
 * <ol>
 *   <li>Bind {@code idworker.pool.*}, {@code idworker.redis.key-prefix} and the timeouts
 *       {@code idworker.jdbc.statement-timeout} and {@code idworker.jdbc.network-timeout}.</li>
 *   <li>{@code poolStore}: create the pool table when {@code idworker.pool.initialize-schema} says so (after any
 *       {@code spring.sql.init} scripts); check it exists with the columns used.</li>
 *   <li>{@code idPools}: validate the options ({@code environment} of {@code environments}, {@code lock-ttl},
 *       {@code scan-interval}, {@code max-refill}) and build and check every entity under
 *       {@code idworker.pool.entities} — all of them before anything is written, so one bad value fails the
 *       startup naming its property and registers nothing.</li>
 *   <li>Hand every alarm to every {@link PoolAlarmListener} bean (the Micrometer counter
 *       {@link PoolAlarmMetrics} among them when present) and publish it as a {@link PoolAlarmEvent}.</li>
 *   <li>Register each entity in the table (an entity the table holds keeps the table's values; a row pinned to
 *       another environment fails the startup naming {@code idworker.pool.environment}); each node starts
 *       refilling it at once, in the background.</li>
 *   <li>Start the periodic table scan that picks up entities operators insert or delete.</li>
 * </ol>
 * Any failure stops the startup with a message naming the property at fault; pools already built are closed.
 * Nothing is written to Redis during startup itself: the first refill check runs on the pools' own thread.
 *
 * <p>Steps at shutdown: {@link ClosingLifecycle} closes the pools before the Redis connection factory stops, so
 * no refill runs against a stopped factory; the destroy method closes them again (idempotent).
 *
 * <p>The data source and connection factory are the single candidates (the only bean of the type, or the one
 * marked {@code @Primary}), the rule of {@code @ConditionalOnSingleCandidate}; they are looked up when the beans
 * are built rather than by that condition, so that an application without one fails at startup naming
 * {@code spring.datasource.url} or {@code spring.data.redis.host} instead of silently getting no pools.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class IdPoolsConfig {

    private static final Logger log = LoggerFactory.getLogger(IdPoolsConfig.class);

    /** Name of the store bean; declare your own {@code PoolStore} with this name to replace it. */
    public static final String STORE_BEAN = "poolStore";

    /** Name of the pools bean; declare your own {@code IdPools} with this name to replace it. */
    public static final String POOLS_BEAN = "idPools";

    @Bean(name = STORE_BEAN)
    @ConditionalOnMissingBean(name = STORE_BEAN)
    @DependsOnDatabaseInitialization
    public JdbcPoolStore poolStore(ObjectProvider<DataSource> dataSources, IdWorkerProperties properties) {
        DataSource dataSource = SingleDataSource.require(dataSources, "@EnableIdPools",
                "a PoolStore bean named " + STORE_BEAN);
        PoolProperties pool = properties.getPool();
        JdbcProperties jdbc = properties.getJdbc();
        JdbcPoolStore store = new JdbcPoolStore(dataSource, pool.getTable(),
                new JdbcTimeouts(jdbc.getStatementTimeout(), jdbc.getNetworkTimeout()));
        if (pool.getInitializeSchema().creates(dataSource)) {
            store.createSchemaIfMissing();
        }
        store.verifySchema();
        return store;
    }

    @Bean(name = POOLS_BEAN, destroyMethod = "close")
    @ConditionalOnMissingBean(name = POOLS_BEAN)
    public RedisIdPools idPools(ObjectProvider<RedisConnectionFactory> connectionFactories,
                                @Qualifier(STORE_BEAN) PoolStore store, ObjectProvider<PoolAlarmListener> alarmListeners,
                                ApplicationEventPublisher publisher, IdWorkerProperties properties) {
        RedisPoolOptions.Builder builder = options(properties);
        alarmListeners.orderedStream().forEach(builder::alarmListener);
        AlarmEventPublisher events = new AlarmEventPublisher(publisher);
        builder.alarmListener(events);
        RedisPoolOptions options = builder.build();
        List<PoolEntity> entities = entities(properties.getPool());
        RedisConnectionFactory connectionFactory = connectionFactories.getIfUnique();
        if (connectionFactory == null) {
            throw new IdWorkerConfigurationException("spring.data.redis.host",
                    "@EnableIdPools needs exactly one RedisConnectionFactory bean (or one marked @Primary), found "
                            + connectionFactories.stream().count() + "; add spring-boot-starter-data-redis and "
                            + "configure spring.data.redis.*, or declare an IdPools bean named " + POOLS_BEAN);
        }
        RedisIdPools pools = new RedisIdPools(new SpringRedisScriptExecutor(connectionFactory), store, options);
        events.source = pools;
        try {
            List<String> registered = new ArrayList<>(entities.size());
            for (PoolEntity entity : entities) {
                registered.add(pools.register(entity).key());
            }
            pools.start();
            if (!registered.isEmpty()) {
                log.info("ID pools {} registered in {}, environment {}", registered, store.description(),
                        options.environment());
            }
            return pools;
        } catch (RuntimeException e) {
            // entities registered before the failure are being refilled already: stop that
            pools.close();
            throw e;
        }
    }

    /** Closes {@code idPools} before the context's connection factories stop. */
    @Bean
    ClosingLifecycle idPoolsLifecycle(@Qualifier(POOLS_BEAN) ObjectProvider<RedisIdPools> pools) {
        return new ClosingLifecycle(pools.getIfAvailable());
    }

    /**
     * The options of the pools from {@code idworker.pool.*}, without alarm listeners; keys share
     * {@code idworker.redis.key-prefix} with the other Redis stores. {@link RedisPoolOptions.Builder#build()}
     * validates them.
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.pool.environment} or
     *         {@code idworker.pool.environments} when they do not make a split
     */
    static RedisPoolOptions.Builder options(IdWorkerProperties properties) {
        PoolProperties pool = properties.getPool();
        return RedisPoolOptions.builder()
                .keyPrefix(properties.getRedis().getKeyPrefix())
                .environment(new PoolEnvironment(pool.getEnvironment(), pool.getEnvironments()))
                .lockTtl(pool.getLockTtl())
                .scanInterval(pool.getScanInterval())
                .maxRefill(pool.getMaxRefill())
                .maxWait(pool.getMaxWait());
    }

    /**
     * Every entity under {@code idworker.pool.entities}, built and checked, in the order configured.
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.pool.entities.<key>.<field>} of the first
     *         value a pool cannot run with, or {@code idworker.pool.entities.<key>} for a malformed key
     */
    static List<PoolEntity> entities(PoolProperties pool) {
        List<PoolEntity> entities = new ArrayList<>(pool.getEntities().size());
        for (Map.Entry<String, PoolEntityProperties> e : pool.getEntities().entrySet()) {
            entities.add(entity(e.getKey(), e.getValue()));
        }
        return entities;
    }

    /**
     * Entity {@code key} as configured; unset values take {@link PoolEntity}'s defaults.
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.pool.entities.<key>.<field>}
     */
    static PoolEntity entity(String key, PoolEntityProperties settings) {
        // named like the entry itself, as serial rules are, so the message points at the line to correct
        PoolEntity.checkKey(key, "idworker.pool.entities." + key);
        PoolEntityProperties s = (settings != null) ? settings : new PoolEntityProperties();
        return PoolEntity.builder(key)
                .name(s.getName())
                .type(s.getType())
                .startOffset(s.getStartOffset())
                .step(s.getStep())
                .maxPerRequest(s.getMaxPerRequest())
                .maxPerSecond(s.getMaxPerSecond())
                .thresholdPercent(s.getThresholdPercent())
                .checkInterval(s.getCheckInterval())
                .maxPoolSize(s.getMaxPoolSize())
                .maxGap(s.getMaxGap())
                .build();
    }

    /**
     * Publishes every alarm as a {@link PoolAlarmEvent} whose source is the pools that raised it. The source is
     * set right after the pools are built and before any entity is registered, and no alarm is raised without an
     * entity, so every alarm finds it set.
     */
    static final class AlarmEventPublisher implements PoolAlarmListener {

        private final ApplicationEventPublisher publisher;
        volatile @Nullable IdPools source;

        AlarmEventPublisher(ApplicationEventPublisher publisher) {
            this.publisher = publisher;
        }

        @Override
        public void onAlarm(PoolAlarm alarm) {
            IdPools pools = this.source;
            if (pools != null) {
                this.publisher.publishEvent(new PoolAlarmEvent(pools, alarm));
            }
        }

        @Override
        public String toString() {
            return "PoolAlarmEvent publisher";
        }
    }
}

package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolAlarmListener;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
import io.github.idworker.spring.annotation.EnableIdPools;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What {@code @EnableIdPools} sets up, over a real Redis server (embedded-redis) with either client and a real H2
 * database, one fresh database per test: the store {@code poolStore}, the pools {@code idPools}, the pool table
 * and the entities configured under {@code idworker.pool.entities}, registered at startup; user beans of either
 * name winning; every bad value failing the startup with its property named; a take larger than the pool refused
 * whole with an alarm heard as a log line, a {@link PoolAlarmEvent}, a listener call and a Micrometer count; and
 * the starter without spring-data-redis (a clear failure) or without Micrometer (pools work). Every test uses
 * entity keys of its own and removes their rows and Redis keys afterwards.
 */
class IdPoolsConfigTest {

    /** The pool table as applications created it before reserved_to existed. */
    private static final ShippedSchema OLD_POOL_TABLE =
            ShippedSchema.of("pool/jdbc", "idworker_id_pool", "old_id_pool").without("reserved_to");

    private static final String TABLE = JdbcPoolStore.DEFAULT_TABLE;

    private final String url = TestNames.h2Url();
    private final PoolLeftovers leftovers = new PoolLeftovers();

    @AfterEach
    void removeLeftovers() {
        leftovers.remove(url, "sa", "", TABLE, "127.0.0.1", EmbeddedRedis.port(), "idworker");
        leftovers.remove(url, "sa", "", "custom_pool", "127.0.0.1", EmbeddedRedis.port(), "custom-prefix");
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableIdPools
    static class PoolsApp {
    }

    private ApplicationContextRunner pools() {
        return runner.withUserConfiguration(PoolsApp.class).withPropertyValues("spring.datasource.url=" + url,
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port());
    }

    /** The properties of entity {@code key}: {@code field=value} pairs under {@code idworker.pool.entities.<key>.}. */
    private static String[] entity(String key, String... settings) {
        return Arrays.stream(settings).map(s -> PoolEntity.property(key, s)).toArray(String[]::new);
    }

    /** A small pool that fills in one refill: 100 per request, 200 per second, 12000 IDs. */
    private static String[] small(String key) {
        return entity(key, "max-per-request=100", "max-per-second=200");
    }

    static void awaitLevel(RedisIdPools pools, String entity, long atLeast) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> pools.status(entity).level() >= atLeast);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aConfiguredEntityIsRegisteredAndHandsOutIdsOverTheApplicationsConnectionFactory(String clientType) {
        String key = leftovers.entity();
        pools().withPropertyValues("spring.data.redis.client-type=" + clientType).withPropertyValues(small(key))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(
                            clientType.equals("jedis") ? JedisConnectionFactory.class : LettuceConnectionFactory.class);
                    JdbcPoolStore store = context.getBean(JdbcPoolStore.class);
                    assertThat(context.getBean("poolStore")).isSameAs(store);
                    assertThat(store.tableName()).isEqualTo(TABLE);
                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    assertThat(context.getBean("idPools")).isSameAs(pools);
                    assertThat(context).hasSingleBean(IdPools.class);
                    assertThat(context).hasSingleBean(PoolAlarmMetrics.class);

                    // the row holds the configured settings, the rest the core's defaults, pinned to environment 0/1
                    PoolEntity expected = PoolEntity.builder(key).maxPerRequest(100).maxPerSecond(200).build();
                    PoolEntity held = store.find(key).orElseThrow();
                    assertThat(held.sameSettings(expected)).as("%s as configured: %s", held, expected).isTrue();
                    assertThat(held.maxPoolSize()).isEqualTo(60L * 200);
                    assertThat(pinned(key)).isEqualTo("0/1");

                    awaitLevel(pools, key, expected.thresholdLevel());
                    assertThat(pools.checkNow(key)).as("waits for the first check to finish").isTrue();
                    assertThat(pools.refills()).isEqualTo(1);
                    long[] ids = pools.take(key, 10);
                    assertThat(ids).hasSize(10).doesNotHaveDuplicates();
                    assertThat(ids).as("the first offsets, in order").containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
                    assertThat(pools.take(key)).isEqualTo(11);
                });
    }

    @Test
    void everySettingOfAnEntityAndTheOptionsReachTheTableAndTheKeys() {
        String key = leftovers.entity();
        String trend = leftovers.entity();
        pools().withPropertyValues("idworker.pool.table=custom_pool", "idworker.pool.initialize-schema=always",
                        "idworker.redis.key-prefix=custom-prefix", "idworker.pool.environment=1",
                        "idworker.pool.environments=3", "idworker.pool.lock-ttl=5s", "idworker.pool.scan-interval=2s",
                        "idworker.pool.max-refill=4000", "idworker.pool.max-wait=1500ms")
                .withPropertyValues(entity(key, "name=Order numbers", "type=monotonic", "start-offset=100",
                        "step=200", "max-per-request=50", "max-per-second=1000", "threshold-percent=50",
                        "check-interval=300ms", "max-pool-size=2000", "max-gap=2"))
                .withPropertyValues(entity(trend, "type=TREND", "step=10", "max-per-request=10",
                        "max-per-second=100", "max-pool-size=100", "threshold-percent=40"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcPoolStore store = context.getBean(JdbcPoolStore.class);
                    assertThat(store.tableName()).isEqualTo("custom_pool");
                    PoolEntity expected = PoolEntity.builder(key).name("Order numbers").type(IncreasingType.MONOTONIC)
                            .startOffset(100).step(200).maxPerRequest(50).maxPerSecond(1000).thresholdPercent(50)
                            .checkInterval(Duration.ofMillis(300)).maxPoolSize(2000L).maxGap(2).build();
                    assertThat(store.find(key).orElseThrow().toString()).isEqualTo(expected.toString());
                    assertThat(store.find(trend).orElseThrow().sameSettings(PoolEntity.builder(trend)
                            .type(IncreasingType.TREND).step(10).maxPerRequest(10).maxPerSecond(100).maxPoolSize(100L)
                            .thresholdPercent(40).build())).isTrue();

                    RedisPoolOptions options = IdPoolsConfig.options(context.getBean(IdWorkerProperties.class)).build();
                    assertThat(options.keyPrefix()).isEqualTo("custom-prefix");
                    assertThat(options.environment()).isEqualTo(new PoolEnvironment(1, 3));
                    assertThat(options.lockTtl()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(options.scanInterval()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(options.maxRefill()).isEqualTo(4000);
                    assertThat(options.maxWait()).isEqualTo(Duration.ofMillis(1500));

                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    awaitLevel(pools, key, expected.thresholdLevel());
                    long[] ids = pools.take(key, 50);
                    // environment 1 of 3: every ID is offset × 3 + 1, from offset 100 up, gaps of at most 2 offsets
                    assertThat(Arrays.stream(ids).map(id -> id % 3).distinct().toArray()).containsExactly(1);
                    assertThat(ids[0]).isEqualTo(100 * 3 + 1);
                    for (int i = 1; i < ids.length; i++) {
                        assertThat(ids[i] - ids[i - 1]).isBetween(3L, 9L);
                    }
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        assertThat(jedis.exists(PoolLeftovers.listKey("custom-prefix", key))).isTrue();
                        assertThat(jedis.exists(PoolLeftovers.listKey("idworker", key))).isFalse();
                    }
                    awaitLevel(pools, trend, 100);
                    assertThat(pools.take(trend, 10)).as("one shuffled chunk: offsets 1..10 of environment 1/3")
                            .containsExactlyInAnyOrder(4, 7, 10, 13, 16, 19, 22, 25, 28, 31);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            threshold at 0                   | threshold-percent=0                                   | threshold-percent | must be from 1 to 99, was 0
            threshold at 100                 | threshold-percent=100                                 | threshold-percent | must be from 1 to 99, was 100
            no ID per request                | max-per-request=0                                     | max-per-request   | must be from 1 to max-per-second
            more per request than per second | max-per-request=600,max-per-second=500                | max-per-request   | could never pass the rate limit
            a step that does not fit         | max-pool-size=1000,threshold-percent=80,step=500      | step              | 1000 × (1 − 80/100) = 200 is below step 500
            step past the largest            | step=2000000                                          | step              | must be from 1 to 1000000
            check interval below 10ms        | check-interval=5ms                                    | check-interval    | must be from 10ms to 1h
            negative start offset            | start-offset=-1                                       | start-offset      | must be at least 0
            gaps in a TREND pool             | type=trend,max-gap=5                                  | max-gap           | applies to MONOTONIC pools only
            a default pool too large         | max-per-second=2000000,max-per-request=10             | max-pool-size     | the default, 60 × max-per-second
            """)
    void aBadEntityFailsStartupNamingItsPropertyAndNothingIsRegistered(String what, String settings, String field,
                                                                        String message) throws Exception {
        String good = leftovers.entity();
        String bad = leftovers.entity();
        pools().withPropertyValues(small(good)).withPropertyValues(entity(bad, settings.split(","))).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            IdWorkerConfigurationException cause = StartupFailures.cause(failure, IdWorkerConfigurationException.class);
            String property = PoolEntity.property(bad, field);
            assertThat(cause.getProperty()).as(what).isEqualTo(property);
            assertThat(cause.getMessage()).as(what).startsWith(property + ": ").contains(message);
            FailureAnalysis analysis = StartupFailures.analysis(failure);
            assertThat(analysis.getDescription()).contains("idPools").contains(property);
            assertThat(analysis.getAction()).contains("correct '" + property + "'");
        });
        // every entity is checked before any is written: the good one, configured first, was not registered either
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            assertThat(PoolLeftovers.rows(c, TABLE, leftovers.keys())).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            idworker.pool.environment=2,idworker.pool.environments=2   | idworker.pool.environment    | must be from 0 to 1 (idworker.pool.environments is 2), was 2
            idworker.pool.environment=-1                               | idworker.pool.environment    | must be from 0 to 0
            idworker.pool.environments=0                               | idworker.pool.environments   | must be from 1 to 1024, was 0
            idworker.pool.lock-ttl=50ms                                | idworker.pool.lock-ttl       | must be from 100ms to 10m
            idworker.pool.scan-interval=2h                             | idworker.pool.scan-interval  | must be from 10ms to 1h
            idworker.pool.max-refill=0                                 | idworker.pool.max-refill     | must be from 1 to 10000000
            idworker.pool.max-wait=0s                                  | idworker.pool.max-wait       | must be from 1ms to 10m
            idworker.redis.key-prefix={bad}                            | idworker.redis.key-prefix    | {bad}
            idworker.pool.table=pools;drop                             | idworker.pool.table          | pools;drop
            idworker.jdbc.network-timeout=1s                           | idworker.jdbc.network-timeout | must be longer than idworker.jdbc.statement-timeout
            """)
    void badPoolValuesFailStartupNamingTheProperty(String properties, String property, String message) {
        String key = leftovers.entity();
        pools().withPropertyValues(small(key)).withPropertyValues(properties.split(",")).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            IdWorkerConfigurationException cause = StartupFailures.cause(failure, IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo(property);
            assertThat(cause.getMessage()).contains(message);
            FailureAnalysis analysis = StartupFailures.analysis(failure);
            assertThat(analysis.getDescription()).contains(property);
            assertThat(analysis.getAction()).contains(property);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"[bad/key]", "[a b]", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"})
    void aMalformedEntityKeyFailsStartupNamingIt(String key) {
        String bare = key.replace("[", "").replace("]", "");
        pools().withPropertyValues("idworker.pool.entities" + (key.startsWith("[") ? "" : ".") + key + ".step=100",
                "idworker.pool.entities" + (key.startsWith("[") ? "" : ".") + key + ".max-pool-size=1000").run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.pool.entities." + bare);
                    assertThat(cause.getMessage()).contains("1 to 64 letters, digits, '_', '-' or '.'")
                            .contains("'" + bare + "'");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                            .contains("idworker.pool.entities." + bare);
                });
    }

    @Test
    void anEntityPinnedToAnotherEnvironmentFailsStartupNamingTheEnvironment() {
        String key = leftovers.entity();
        pools().withPropertyValues(small(key)).withPropertyValues("idworker.pool.environments=2")
                .run(context -> assertThat(context).hasNotFailed());
        pools().withPropertyValues(small(key)).withPropertyValues("idworker.pool.environment=1",
                "idworker.pool.environments=2").run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo(PoolEnvironment.ENVIRONMENT_PROPERTY);
                    assertThat(cause.getMessage()).contains(key).contains("pinned to environment 0/2")
                            .contains("configured 1/2");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getDescription())
                            .contains("idPools");
                });
        assertThat(pinned(key)).as("the row keeps its environment").isEqualTo("0/2");
    }

    @Test
    void aMissingTableWithoutSchemaInitializationFailsNamingTheProperty() {
        pools().withPropertyValues("idworker.pool.initialize-schema=never").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo(JdbcPoolStore.INITIALIZE_SCHEMA_PROPERTY);
            assertThat(cause.getMessage()).contains(TABLE);
            FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("poolStore");
            assertThat(analysis.getAction()).contains("pool table").contains("idworker.pool.initialize-schema=always");
        });
    }

    @Test
    void aTableCreatedBySpringSqlInitIsFoundWithSchemaInitializationNever() {
        String key = leftovers.entity();
        pools().withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + ShippedSchema.of("pool/jdbc", "idworker_id_pool", "app_id_pool").location(),
                        "idworker.pool.table=app_id_pool", "idworker.pool.initialize-schema=never")
                .withPropertyValues(small(key))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(JdbcPoolStore.class).find(key)).isPresent();
                });
        leftovers.remove(url, "sa", "", "app_id_pool", "127.0.0.1", EmbeddedRedis.port(), "idworker");
    }

    /** A pool table created before reserved_to existed, by the application's own DDL: startup says how to upgrade it. */
    @Test
    void aTableWithoutReservedToFailsStartupQuotingTheStatementsThatAddIt() {
        pools().withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + OLD_POOL_TABLE.location(),
                        "idworker.pool.table=old_id_pool", "idworker.pool.initialize-schema=never")
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo(JdbcPoolStore.INITIALIZE_SCHEMA_PROPERTY);
                    assertThat(cause.getMessage()).contains("'old_id_pool'", "lacks column reserved_to",
                            "ALTER TABLE old_id_pool ADD COLUMN reserved_to BIGINT; UPDATE old_id_pool SET "
                                    + "reserved_to = current_offset WHERE reserved_to IS NULL");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("ALTER TABLE old_id_pool ADD COLUMN reserved_to");
                    assertThat(analysis.getAction()).contains("Add the column")
                            .contains("idworker.pool.initialize-schema=always");
                });
    }

    /** The same table with initialize-schema=always: the column is added at startup and raised by every refill. */
    @Test
    void aTableWithoutReservedToIsUpgradedAtStartupWithSchemaInitializationAlways() {
        String key = leftovers.entity();
        pools().withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + OLD_POOL_TABLE.location(),
                        "idworker.pool.table=old_id_pool", "idworker.pool.initialize-schema=always")
                .withPropertyValues(small(key))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    awaitLevel(pools, key, 1);
                    assertThat(pools.take(key)).isEqualTo(1);
                    try (Connection c = context.getBean(DataSource.class).getConnection();
                         PreparedStatement ps = c.prepareStatement(
                                 "SELECT current_offset, reserved_to FROM old_id_pool WHERE entity_key = ?")) {
                        ps.setString(1, key);
                        try (ResultSet rs = ps.executeQuery()) {
                            assertThat(rs.next()).isTrue();
                            assertThat(rs.getLong(2)).as("raised with current_offset").isEqualTo(rs.getLong(1))
                                    .isPositive();
                        }
                    }
                });
        leftovers.remove(url, "sa", "", "old_id_pool", "127.0.0.1", EmbeddedRedis.port(), "idworker");
    }

    @Test
    void withoutADataSourceStartupFailsNamingSpringDatasource() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withUserConfiguration(PoolsApp.class).run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("spring.datasource.url");
                    assertThat(cause.getMessage()).contains("@EnableIdPools").contains("PoolStore bean named poolStore");
                });
    }

    @Test
    void withoutARedisConnectionFactoryStartupFailsNamingSpringDataRedis() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(PoolsApp.class).withPropertyValues("spring.datasource.url=" + url)
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("spring.data.redis.host");
                    assertThat(cause.getMessage()).contains("@EnableIdPools").contains("spring-boot-starter-data-redis");
                });
    }

    @Test
    void withoutSpringDataRedisOnTheClassPathStartupFailsNamingTheStarterToAdd() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(PoolsApp.class)
                .withPropertyValues("spring.datasource.url=" + url)
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("@EnableIdPools");
                    assertThat(cause.getMessage()).contains("spring-data-redis")
                            .contains("add spring-boot-starter-data-redis");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("@EnableIdPools");
                    assertThat(analysis.getAction()).contains("Add the dependency named above");
                });
    }

    @Test
    void withoutMicrometerOnTheClassPathThePoolsStartAndHandOutIds() {
        String key = leftovers.entity();
        pools().withClassLoader(new FilteredClassLoader("io.micrometer")).withPropertyValues(small(key))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("poolAlarmMetrics");
                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    awaitLevel(pools, key, 100);
                    assertThat(pools.take(key, 100)).hasSize(100).doesNotHaveDuplicates();
                });
    }

    /** Hears every {@link PoolAlarmEvent} through an {@code @EventListener} method. */
    static class AlarmEvents {

        final List<PoolAlarmEvent> heard = new CopyOnWriteArrayList<>();

        @EventListener
        void on(PoolAlarmEvent event) {
            heard.add(event);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdPools
    static class AlarmsApp {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        AlarmEvents alarmEvents() {
            return new AlarmEvents();
        }

        /** An application's own alarm listener, handed to the pools like the built-in ones. */
        @Bean
        RecordingAlarmListener recordingAlarmListener() {
            return new RecordingAlarmListener();
        }
    }

    static class RecordingAlarmListener implements PoolAlarmListener {

        final List<PoolAlarm> heard = new CopyOnWriteArrayList<>();

        @Override
        public void onAlarm(PoolAlarm alarm) {
            heard.add(alarm);
        }
    }

    @Test
    void aTakeLargerThanThePoolIsRefusedWholeAndHeardAsAnEventAMetricAndByListeners() {
        String key = leftovers.entity();
        // one check an hour: the level stays where the takes leave it until the refused take asks for a refill
        runner.withUserConfiguration(AlarmsApp.class).withPropertyValues("spring.datasource.url=" + url,
                        "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port())
                .withPropertyValues(entity(key, "max-per-request=1000", "max-pool-size=1500", "threshold-percent=50",
                        "step=500", "check-interval=1h"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    awaitLevel(pools, key, 1500);
                    // waits for the first check to finish: its last look at the level must not see the takes below
                    assertThat(pools.checkNow(key)).isTrue();
                    assertThat(pools.take(key, 1000)).hasSize(1000);
                    String list = PoolLeftovers.listKey("idworker", key);
                    List<String> before;
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        before = jedis.lrange(list, 0, -1);
                    }
                    assertThat(before).hasSize(500);

                    assertThatThrownBy(() -> pools.take(key, 501)).isInstanceOfSatisfying(PoolEmptyException.class,
                            e -> {
                                assertThat(e.getEntity()).isEqualTo(key);
                                assertThat(e.getLevel()).isEqualTo(500);
                                assertThat(e.getRequested()).isEqualTo(501);
                            });

                    // nothing was removed from the head (the refill the refusal asked for appends behind it)
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        assertThat(jedis.lrange(list, 0, 499)).isEqualTo(before);
                    }
                    // the alarm was heard synchronously, before the exception reached the caller
                    List<PoolAlarmEvent> events = context.getBean(AlarmEvents.class).heard;
                    assertThat(events).singleElement().satisfies(event -> {
                        assertThat(event.getIdPools()).isSameAs(pools);
                        PoolAlarm alarm = event.getAlarm();
                        assertThat(alarm.kind()).isEqualTo(PoolAlarm.Kind.EMPTY);
                        assertThat(alarm.entity()).isEqualTo(key);
                        assertThat(alarm.level()).isEqualTo(500);
                        assertThat(alarm.requested()).isEqualTo(501);
                    });
                    assertThat(context.getBean(RecordingAlarmListener.class).heard)
                            .containsExactly(events.get(0).getAlarm());
                    SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
                    assertThat(registry.get(PoolAlarmMetrics.METER_NAME).tag("entity", key).tag("kind", "empty")
                            .counter().count()).isEqualTo(1.0);
                    assertThat(registry.find(PoolAlarmMetrics.METER_NAME).tag("kind", "low").counter()).isNull();

                    // the refused take asked for a refill at once, though the next check is an hour away
                    awaitLevel(pools, key, 750);
                    assertThat(pools.take(key, 501)[0]).isEqualTo(Long.parseLong(before.get(0)));
                });
    }

    /** A real JDBC store over its own table that records what it is asked. */
    static class RecordingStore extends JdbcPoolStore {

        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingStore(DataSource dataSource) {
            super(dataSource, "custom_pool", JdbcTimeouts.defaults());
        }

        @Override
        public PoolEntity register(PoolEntity entity, PoolEnvironment environment) {
            calls.add("register " + entity.key());
            return super.register(entity, environment);
        }

        @Override
        public PoolReservation reserve(String key, int chunks, PoolEnvironment environment) {
            calls.add("reserve " + key);
            return super.reserve(key, chunks, environment);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdPools
    static class CustomStoreApp {

        @Bean
        RecordingStore poolStore(DataSource dataSource) {
            RecordingStore store = new RecordingStore(dataSource);
            store.createSchemaIfMissing();
            return store;
        }
    }

    @Test
    void aUserBeanNamedPoolStoreReplacesTheDefaultAndIsTheOneThePoolsUse() {
        String key = leftovers.entity();
        runner.withUserConfiguration(CustomStoreApp.class).withPropertyValues("spring.datasource.url=" + url,
                        "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port())
                .withPropertyValues(small(key))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(PoolStore.class);
                    RecordingStore store = context.getBean(RecordingStore.class);
                    assertThat(context.getBean("poolStore")).isSameAs(store);
                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    awaitLevel(pools, key, 100);
                    assertThat(pools.take(key, 3)).containsExactly(1, 2, 3);
                    assertThat(store.calls).startsWith("register " + key, "reserve " + key);
                    try (Connection c = context.getBean(DataSource.class).getConnection()) {
                        assertThat(SerialStoreConfigTest.tableExists(c, "IDWORKER_ID_POOL"))
                                .as("the default store never ran, so the default table was never created").isFalse();
                    }
                });
    }

    /** An application's own pools: numbers from a counter, for a test that needs no Redis. */
    static class CountingPools implements IdPools {

        private final AtomicLong next = new AtomicLong();

        @Override
        public long[] take(String entity, int count) {
            long first = next.getAndAdd(count) + 1;
            long[] ids = new long[count];
            for (int i = 0; i < count; i++) {
                ids[i] = first + i;
            }
            return ids;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdPools
    static class CustomPoolsApp {

        @Bean
        CountingPools idPools() {
            return new CountingPools();
        }
    }

    @Test
    void aUserBeanNamedIdPoolsReplacesTheRedisOneWhichThenNeedsNoConnectionFactory() {
        String key = leftovers.entity();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(CustomPoolsApp.class)
                .withPropertyValues("spring.datasource.url=" + url).withPropertyValues(small(key))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(IdPools.class).doesNotHaveBean(RedisIdPools.class);
                    assertThat(context.getBean("idPools")).isInstanceOf(CountingPools.class);
                    assertThat(context.getBean(IdPools.class).take(key, 3)).containsExactly(1, 2, 3);
                    // the store is still there, for the application's own pools to use
                    assertThat(context.getBean("poolStore")).isInstanceOf(JdbcPoolStore.class);
                });
    }

    /** {@code e/E} of the entity's row. */
    private String pinned(String key) {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             PreparedStatement ps = c.prepareStatement("SELECT environment, environments FROM " + TABLE
                     + " WHERE entity_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row of %s", key).isTrue();
                return rs.getInt(1) + "/" + rs.getInt(2);
            }
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }
}

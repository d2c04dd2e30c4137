package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.spring.annotation.EnableIdPools;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.boot.actuate.IdWorkerEndpoint;
import io.github.idworker.spring.boot.actuate.IdWorkerMeters;
import io.github.idworker.spring.boot.actuate.IdWorkerReport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import redis.embedded.RedisServer;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Meters, the {@code idworker} endpoint and the health components of every mode over real stores: H2 and a Redis
 * server of this test's own (embedded-redis), stopped afterwards, so nothing is left behind. Shows that the
 * endpoint and health read memory only: with Redis stopped and H2 shut down they answer at once, and go DOWN only
 * where memory says a mode can no longer issue.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdWorkerOperationsTest {

    private RedisServer redis;
    private int redisPort;
    private final String segmentTag = "s-" + UUID.randomUUID().toString().substring(0, 8);
    private final String sequenceTag = "q-" + UUID.randomUUID().toString().substring(0, 8);
    private final String rule = "r-" + UUID.randomUUID().toString().substring(0, 8);
    private final String entity = "p-" + UUID.randomUUID().toString().substring(0, 8);
    private final String namespace = TestNames.namespace();

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    @EnableSegmentIdGenerators(redisSequences = true)
    @EnableSerialNumbers
    @EnableIdPools
    static class AllModes {
        // the registry is each test's own: GrafanaDashboardMetricsTest scrapes a Prometheus one
    }

    @BeforeEach
    void startRedis() throws Exception {
        redisPort = EmbeddedRedis.freePort();
        redis = RedisServer.newRedisServer().port(redisPort).bind("127.0.0.1").setting("save \"\"")
                .setting("appendonly no").build();
        redis.start();
    }

    @AfterEach
    void stopRedis() throws Exception {
        if (redis.isActive()) {
            redis.stop();
        }
    }

    private ApplicationContextRunner allModes() {
        String serial = "idworker.serial.rules." + rule + ".";
        return new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataRedisAutoConfiguration.class, IdWorkerOperationsAutoConfiguration.class))
                .withUserConfiguration(AllModes.class).withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redisPort, "spring.data.redis.client-type=jedis",
                        "spring.data.redis.timeout=3s", "spring.data.redis.connect-timeout=3s",
                        "idworker.namespace=" + namespace,
                        "idworker.segment.tags." + segmentTag + ".start-after=1000",
                        "idworker.segment.tags." + sequenceTag + ".start-after=5000",
                        "idworker.segment.min-step=10", "idworker.segment.initial-step=10", "idworker.segment.max-step=100",
                        "idworker.segment.max-wait=1s",
                        serial + "prefix=INV-", serial + "width=8",
                        PoolEntity.property(entity, "max-per-request=100"),
                        PoolEntity.property(entity, "max-per-second=100000"), PoolEntity.property(entity, "step=200"),
                        PoolEntity.property(entity, "max-pool-size=2000"),
                        "management.endpoints.web.exposure.include=idworker");
    }

    /** Issues from every mode once, so every kind of generator exists. */
    static void issueFromEveryMode(AssertableApplicationContext context, String segmentTag, String sequenceTag,
                                           String rule, String entity) {
        context.getBean(AbstractIdWorker.class).nextIds(5);
        context.getBean(SegmentIdGenerators.class).nextIds(segmentTag, 3);
        context.getBean(RedisSequenceGenerators.class).nextIds(sequenceTag, 2);
        context.getBean(SerialNumbers.class).next(rule);
        RedisIdPools pools = context.getBean(RedisIdPools.class);
        // the first refill check has finished (and recorded its outcome) once the snapshot says so
        await().atMost(Duration.ofSeconds(20)).until(() -> pools.snapshots().stream()
                .anyMatch(p -> p.entity().equals(entity) && p.checkedAt() != null && p.lastCheckOk()));
        pools.take(entity, 4);
    }

    private static IdWorkerMeters meters(AssertableApplicationContext context) {
        return context.getBean(IdWorkerOperationsAutoConfiguration.MetersBinder.class).meters();
    }

    private static double issued(MeterRegistry registry, String mode, String name) {
        return registry.get(IdWorkerMeters.ISSUED).tags("mode", mode, "name", name).functionCounter().count();
    }

    @Test
    void metersOfEveryModeAppearWithTheirTagsAndMoveWhenIdsAreIssued() {
        allModes().run(context -> {
            issueFromEveryMode(context, segmentTag, sequenceTag, rule, entity);
            meters(context).refresh();
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            assertThat(issued(registry, "snowflake", namespace)).isEqualTo(5);
            assertThat(issued(registry, "segment", segmentTag)).isEqualTo(3);
            assertThat(issued(registry, "sequence", sequenceTag)).isEqualTo(2);
            assertThat(issued(registry, "serial", rule)).isEqualTo(1);
            assertThat(issued(registry, "pool", entity)).isEqualTo(4);

            assertThat(registry.get("idworker.lease.state").tag("namespace", namespace).gauge().value()).isEqualTo(1);
            // seconds until the high-water: positive while the lease holds, at most the lease's 20 s; how much of it is
            // left depends on when the heartbeat last renewed (0.978 s once seen on a loaded machine)
            assertThat(registry.get("idworker.lease.high.water.remaining").tag("namespace", namespace).gauge().value())
                    .isGreaterThan(0.0).isLessThanOrEqualTo(20.0);
            assertThat(registry.get("idworker.lease.worker.id").tag("namespace", namespace).gauge().value())
                    .isEqualTo(context.getBean(AbstractIdWorker.class).currentLease().workerId());
            assertThat(registry.get("idworker.layout.end.time").tag("namespace", namespace).gauge().value())
                    .isEqualTo(context.getBean(AbstractIdWorker.class).layout().endOfLife().getEpochSecond());
            assertThat(registry.get("idworker.segment.refills").tag("tag", segmentTag).functionTimer().count())
                    .isGreaterThanOrEqualTo(1);
            assertThat(registry.get("idworker.segment.remaining").tag("tag", segmentTag).gauge().value()).isPositive();
            assertThat(registry.get("idworker.sequence.refills").tag("tag", sequenceTag).functionTimer().count())
                    .isEqualTo(1);
            // nextIds(tag, 2) on a new tag: one call finds no range, one more under the refill lock before the
            // refill (another node may have refilled meanwhile), the third takes 2 from the range installed
            assertThat(registry.get("idworker.sequence.script.calls").tag("tag", sequenceTag).functionCounter().count())
                    .isEqualTo(3);
            assertThat(registry.get("idworker.sequence.coalesced.calls").tag("tag", sequenceTag).functionCounter()
                    .count()).isZero();
            assertThat(registry.get("idworker.sequence.installed.ahead").tag("tag", sequenceTag).functionCounter()
                    .count()).isZero();
            assertThat(registry.get("idworker.serial.stock").tag("rule", rule).gauge().value()).isPositive();
            // width 8, no reset: numbers 1 to 99 999 999 in one period, the first of which was taken
            assertThat(registry.get("idworker.serial.period.size").tag("rule", rule).gauge().value())
                    .isEqualTo(99_999_999);
            assertThat(registry.get("idworker.serial.period.remaining").tag("rule", rule).gauge().value())
                    .isEqualTo(99_999_998);
            assertThat(registry.get("idworker.pool.level").tag("entity", entity).gauge().value()).isPositive();
            assertThat(registry.get("idworker.pool.refusals").tags("entity", entity, "reason", "empty")
                    .functionCounter().count()).isZero();

            issueFromEveryMode(context, segmentTag, sequenceTag, rule, entity);
            assertThat(issued(registry, "snowflake", namespace)).isEqualTo(10);
            assertThat(issued(registry, "segment", segmentTag)).isEqualTo(6);
            assertThat(issued(registry, "sequence", sequenceTag)).isEqualTo(4);
            assertThat(issued(registry, "serial", rule)).isEqualTo(2);
            assertThat(registry.get("idworker.serial.period.remaining").tag("rule", rule).gauge().value())
                    .isEqualTo(99_999_997);
            assertThat(issued(registry, "pool", entity)).isEqualTo(8);
        });
    }

    @Test
    void endpointListsTheLeaseTheSegmentTheSequenceTheRuleAndThePool() {
        allModes().run(context -> {
            issueFromEveryMode(context, segmentTag, sequenceTag, rule, entity);
            IdWorkerReport report = context.getBean(IdWorkerEndpoint.class).report();

            AbstractIdWorker worker = context.getBean(AbstractIdWorker.class);
            assertThat(report.workers()).singleElement().satisfies(w -> {
                assertThat(w.bean()).isEqualTo(DBIdWorkerConfig.WORKER_BEAN);
                assertThat(w.mode()).isEqualTo("DB");
                assertThat(w.namespace()).isEqualTo(namespace);
                assertThat(w.state()).isEqualTo("issuing");
                assertThat(w.workerId()).isEqualTo(worker.currentLease().workerId());
                assertThat(w.millisToHighWater()).isPositive();
                // TestNames.SHORT_DB_LEASE: idworker.lease.ttl=2002ms, heartbeat-interval=1001ms
                assertThat(w.leaseTtlMillis()).isEqualTo(2002);
                assertThat(w.heartbeatMillis()).isEqualTo(1001);
                // the layout's last instant, for a status page's end-of-life warning: epoch + 2^bits - 1 ms
                assertThat(w.endOfLife()).isEqualTo(worker.layout().epoch()
                        .plusMillis((1L << worker.layout().timestampBits()) - 1).toString());
                assertThat(w.issued()).isEqualTo(5);
            });
            assertThat(report.segments()).singleElement().satisfies(s -> {
                assertThat(s.tag()).isEqualTo(segmentTag);
                assertThat(s.current().start()).isEqualTo(1001);
                assertThat(s.current().next()).isEqualTo(1004);
                assertThat(s.issued()).isEqualTo(3);
            });
            assertThat(report.sequences()).singleElement().satisfies(q -> {
                assertThat(q.tag()).isEqualTo(sequenceTag);
                assertThat(q.lastIssued()).isEqualTo(5002);
                assertThat(q.lastRange().start()).isEqualTo(5001);
                assertThat(q.issued()).isEqualTo(2);
                assertThat(q.scriptCalls()).isEqualTo(3); // missing, again under the lock, then served
                assertThat(q.coalescedCalls()).isZero();
                assertThat(q.installedAhead()).isZero();
                assertThat(q.failing()).isFalse();
            });
            assertThat(report.serialRules()).singleElement().satisfies(r -> {
                assertThat(r.rule()).isEqualTo(rule);
                assertThat(r.store()).isEqualTo("redis");
                assertThat(r.stock()).isPositive();
                assertThat(r.start()).isEqualTo(1);
                assertThat(r.max()).isEqualTo(99_999_999);
                assertThat(r.periodRemaining()).as("max minus the one number taken").isEqualTo(99_999_998);
                assertThat(r.issued()).isEqualTo(1);
            });
            assertThat(report.pools()).singleElement().satisfies(p -> {
                assertThat(p.entity()).isEqualTo(entity);
                assertThat(p.level()).isPositive();
                assertThat(p.checkedAt()).isNotNull();
                assertThat(p.stale()).isFalse();
            });
            String json = JsonMapper.builder().build().writeValueAsString(report);
            assertThat(json).contains("\"workers\":[", "\"segments\":[", "\"sequences\":[", "\"serialRules\":[",
                    "\"pools\":[").doesNotContain("jdbc:")
                    // no Redis key either: the endpoint may be served on a public port
                    .doesNotContain(":segment:").doesNotContain(":serial:").doesNotContain(":pool:");
            System.out.println("idworker endpoint: " + json);
        });
    }

    @Test
    void everyArrayIsPresentAndEmptyWithoutGenerators() {
        new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withConfiguration(AutoConfigurations.of(IdWorkerOperationsAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=idworker")
                .run(context -> {
                    String json = JsonMapper.builder().build()
                            .writeValueAsString(context.getBean(IdWorkerEndpoint.class).report());
                    assertThat(json).isEqualTo("{\"workers\":[],\"segments\":[],\"sequences\":[],\"serialRules\":[],"
                            + "\"pools\":[]}");
                    assertThat(context).doesNotHaveBean("idworkerSegmentsHealthIndicator")
                            .doesNotHaveBean("idworkerPoolsHealthIndicator");
                });
    }

    @Test
    void healthIsUpForEveryModeAndGoesDownFromMemoryOnceTheStoresAreGone(CapturedOutput output) {
        allModes().run(context -> {
            issueFromEveryMode(context, segmentTag, sequenceTag, rule, entity);
            Map<String, HealthIndicator> health = Map.of(
                    "idWorker", context.getBean("idWorkerHealthIndicator", HealthIndicator.class),
                    "segments", context.getBean("idworkerSegmentsHealthIndicator", HealthIndicator.class),
                    "sequences", context.getBean("idworkerSequencesHealthIndicator", HealthIndicator.class),
                    "serials", context.getBean("idworkerSerialsHealthIndicator", HealthIndicator.class),
                    "pools", context.getBean("idworkerPoolsHealthIndicator", HealthIndicator.class));
            health.forEach((name, h) -> assertThat(h.health().getStatus()).as(name).isEqualTo(Status.UP));

            redis.stop();
            shutDown(context.getBean(DataSource.class));
            IdWorkerEndpoint endpoint = context.getBean(IdWorkerEndpoint.class);
            // no store is asked: both answer at once, and nothing is DOWN that memory does not know to be
            assertQuick(endpoint::report);
            health.forEach((name, h) -> assertThat(quick(h::health).getStatus()).as(name).isEqualTo(Status.UP));

            // each mode fails once it has to reach a store, and memory remembers it
            SegmentIdGenerators segments = context.getBean(SegmentIdGenerators.class);
            long left = endpoint.report().segments().get(0).remaining();
            segments.nextIds(segmentTag, (int) left);
            assertThatThrownBy(() -> segments.nextId(segmentTag)).isNotNull();
            assertThatThrownBy(() -> context.getBean(RedisSequenceGenerators.class).nextId(sequenceTag)).isNotNull();
            assertThatThrownBy(() -> context.getBean(SerialNumbers.class).next(rule)).isNotNull();
            assertThatThrownBy(() -> context.getBean(IdPools.class).take(entity)).isNotNull();

            for (String mode : List.of("segments", "sequences", "serials", "pools")) {
                assertThat(quick(health.get(mode)::health).getStatus()).as(mode).isEqualTo(Status.DOWN);
            }
            // the worker's lease runs 20 s past the last renewal: memory says it can still issue
            assertThat(quick(health.get("idWorker")::health).getStatus()).isEqualTo(Status.UP);
            IdWorkerReport report = quick(endpoint::report);
            assertThat(report.sequences().get(0).lastFailure()).isNotNull();
            assertThat(report.pools().get(0).takeFailing()).isTrue();

            // what the endpoint and the health details publish of these failures: class, time, errorId; never the
            // Redis host:port, the JDBC URL or a table — those are in the log, under the errorId
            JsonMapper json = JsonMapper.builder().build();
            StringBuilder published = new StringBuilder(json.writeValueAsString(quick(endpoint::report)));
            health.values().forEach(h -> published.append(json.writeValueAsString(quick(h::health).getDetails())));
            assertThat(published.toString()).doesNotContain(":" + redisPort).doesNotContain("jdbc:")
                    .doesNotContainIgnoringCase("idworker_segment").doesNotContainIgnoringCase("idworker_serial")
                    .doesNotContainIgnoringCase("idworker_pool").doesNotContain("SQL statement");
            Matcher ids = Pattern.compile("errorId ([0-9a-f]{16})").matcher(published);
            Set<String> errorIds = new HashSet<>();
            while (ids.find()) {
                errorIds.add(ids.group(1));
            }
            assertThat(errorIds).as("an errorId per failure published").hasSizeGreaterThanOrEqualTo(4);
            String log = output.getAll();
            for (String id : errorIds) {
                assertThat(log.lines().filter(l -> l.contains("errorId " + id + ":"))).as("logged once: " + id)
                        .hasSize(1);
            }
            assertThat(log.lines().filter(l -> errorIds.stream().anyMatch(id -> l.contains("errorId " + id + ":")))
                    .anyMatch(l -> l.contains(":" + redisPort) || l.contains("jdbc:")))
                    .as("the log holds the causes: Redis host:port, JDBC URL").isTrue();
        });
    }

    /** Shuts the H2 database down: every later statement of the pool fails. */
    private static void shutDown(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException closedUnderUs) {
            // closing the statement of a database that is gone fails; the shutdown happened
        }
    }

    private static void assertQuick(Supplier<?> call) {
        quick(call);
    }

    /**
     * Runs {@code call} and checks it answered within a second: no Redis timeout (3 s here) waited out. A second,
     * not less, because a 2-core machine under a full build stalls a thread for hundreds of milliseconds.
     */
    private static <T> T quick(Supplier<T> call) {
        long started = System.nanoTime();
        T result = call.get();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
        return result;
    }
}

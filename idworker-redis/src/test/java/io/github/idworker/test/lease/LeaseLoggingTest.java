package io.github.idworker.test.lease;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.test.ManualClock;
import io.github.idworker.test.StderrLog;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator reads about a worker's lease: the wait before a first start (with its reason and length),
 * every lease borrowed and returned (namespace, worker id, floor or high-water, holder), and after the centre is
 * lost, whether IDs still continue or the high-water has already passed.
 */
class LeaseLoggingTest {

    @Test
    void theFirstStartOfANamespaceOnRedisSaysWhyAndHowLongItWaitsAndLogsBorrowAndReturn() {
        String prefix = "idw-log-" + UUID.randomUUID().toString().substring(0, 8);
        String namespace = "ns-" + UUID.randomUUID().toString().substring(0, 8);
        try (UnifiedJedis jedis = EmbeddedRedisSupport.newClient()) {
            RedisSequenceManager manager = new RedisSequenceManager(new JedisScriptExecutor(jedis), prefix);
            WorkerOptions options = WorkerOptions.builder().namespace(namespace).leaseTtl(Duration.ofMillis(300))
                    .maxSkew(Duration.ofMillis(100)).lossGuard(Duration.ofMillis(400)).shutdownHook(false).build();
            String log = StderrLog.during(() -> {
                try (AbstractIdWorker worker = new RedisIdWorker(manager, options).start()) {
                    worker.nextId();
                }
            });
            assertThat(log).containsPattern("INFO .*idworker namespace '" + namespace + "' waits \\d+ ms before it "
                    + "issues IDs with worker id 0: the worker id's floor \\S+ lies ahead of this clock, because the "
                    + "centre holds no record of this worker id's past .*idworker.lease.loss-guard = PT0.4S");
            assertThat(log).containsPattern("INFO .*idworker namespace '" + namespace + "' borrowed worker id 0 "
                    + "\\(floor \\S+, high-water \\S+, holder \\S+ pid " + ProcessHandle.current().pid() + "\\)");
            assertThat(log).containsPattern("INFO .*idworker namespace '" + namespace + "' returned worker id 0 "
                    + "\\(high-water \\S+, the last issued timestamp; holder \\S+ pid \\d+\\)");
            jedis.del("{" + prefix + ":" + namespace + "}:lease");
        }
    }

    @Test
    void afterTheCentreIsLostTheWarningSaysWhetherIdsContinueOrTheHighWaterHasPassed() throws Exception {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:lease-log-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        dataSource.setUser("sa");
        JdbcSequenceManager manager = new JdbcSequenceManager(dataSource);
        manager.createSchemaIfMissing();
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        WorkerOptions options = WorkerOptions.builder().namespace("lost-centre").leaseTtl(Duration.ofMillis(600))
                .lossGuard(Duration.ofMillis(1_600)).clock(clock).shutdownHook(false).build();
        // a namespace in use for a while (created ten minutes ago by the database clock), so no first wait
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO "
                + JdbcSequenceManager.DEFAULT_TABLE + JdbcSequenceManager.NAMESPACE_TABLE_SUFFIX
                + " (ns, layout, guard_ms, slots_created, created_at) VALUES (?, ?, ?, 0, ?)")) {
            ps.setString(1, "lost-centre");
            ps.setString(2, options.layout().pinned());
            ps.setLong(3, options.lossGuard().toMillis());
            ps.setLong(4, System.currentTimeMillis() - 600_000);
            ps.executeUpdate();
        }
        try (AbstractIdWorker worker = new DBIdWorker(manager, options).start()) {
            try (Connection c = dataSource.getConnection()) {
                c.createStatement().execute("DROP TABLE " + JdbcSequenceManager.DEFAULT_TABLE);
            }
            String whileAhead = StderrLog.during(() -> sleep(Duration.ofMillis(500)));
            assertThat(whileAhead).containsPattern("WARN .*idworker namespace 'lost-centre' could not renew its "
                    + "lease; IDs continue for \\d+ ms more, up to the high-water \\S+:");
            clock.advance(10_000);
            String afterPassing = StderrLog.during(() -> sleep(Duration.ofMillis(500)));
            assertThat(afterPassing).containsPattern("WARN .*idworker namespace 'lost-centre' could not renew its "
                    + "lease; no IDs are issued: the high-water \\S+ passed \\d{4,} ms ago, so callers wait up to "
                    + "idworker.lease.fence-wait \\(PT2S\\) and then get LeaseLostException until a renewal "
                    + "succeeds:").doesNotContain("IDs continue");
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.github.idworker.test.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A row locked by another session (an open transaction that selected it {@code FOR UPDATE}) must make the JDBC
 * centres fail within the statement timeout, never hang: a renewal that hangs holds up the worker's fence, a
 * return that hangs holds up shutdown. The databases themselves wait far longer for a lock (MariaDB 50 s,
 * PostgreSQL for ever; the H2 URL of the subclass asks for 60 s).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractJdbcStatementTimeoutTest {

    /** The default statement timeout (2 s) and one second for the round trips around it. */
    static final Duration BOUND = Duration.ofSeconds(3);

    private JdbcSequenceManagerStore leases;
    private JdbcSegmentAllocatorStore segments;
    private final String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);
    private final String tag = "s-" + UUID.randomUUID().toString().substring(0, 13);

    private final Database database;

    protected AbstractJdbcStatementTimeoutTest(Database database) {
        this.database = database;
    }

    @BeforeEach
    void open() {
        leases = new JdbcSequenceManagerStore(database.url(), database.user(), "");
        segments = new JdbcSegmentAllocatorStore(database.url(), database.user(), "");
    }

    @AfterEach
    void close() {
        leases.deleteNamespace(ns);
        segments.deleteTag(tag);
        leases.close();
        segments.close();
    }

    /**
     * A borrow in a namespace in use for a while ({@code createAgedNamespace}), so its first high-water is the
     * clock + ttl and a renewal may raise it by less than max-skew (DESIGN rule 13).
     */
    private LeaseRequest request(String ns) {
        leases.createAgedNamespace(ns, 4, SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned(),
                Duration.ofSeconds(15), Duration.ofSeconds(1));
        return new LeaseRequest(ns, 4, UUID.randomUUID().toString(), Duration.ofSeconds(15),
                System.currentTimeMillis(), Duration.ofSeconds(1), "test-host", 42,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
    }

    @Test
    void renewalOfALockedSlotFailsWithinTheStatementTimeout() throws Exception {
        ISequenceManager manager = new JdbcSequenceManager(leases.dataSource());
        WorkerLease lease = manager.borrow(request(ns));
        try (AutoCloseable lock = leases.stall(ns, lease.workerId())) {
            assertTimeoutPreemptively(BOUND, () -> assertThatThrownBy(
                    () -> manager.renew(lease, lease.highWaterMillis() + 500))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining("renew worker id " + lease.workerId()));
        }
        // the lock is gone: the same renewal succeeds, so the failure was the lock and nothing else
        assertThat(manager.renew(lease, lease.highWaterMillis() + 500).highWaterMillis())
                .isEqualTo(lease.highWaterMillis() + 500);
    }

    @Test
    void aShorterStatementTimeoutIsHonouredAndNamedInTheMessage() throws Exception {
        ISequenceManager manager = new JdbcSequenceManager(leases.dataSource(), JdbcSequenceManager.DEFAULT_TABLE,
                new JdbcTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2)));
        WorkerLease lease = manager.borrow(request(ns));
        try (AutoCloseable lock = leases.stall(ns, lease.workerId())) {
            assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertThatThrownBy(
                    () -> manager.renew(lease, lease.highWaterMillis() + 500))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining(JdbcTimeouts.STATEMENT_TIMEOUT_PROPERTY));
        }
    }

    @Test
    void returnOfALockedSlotFailsWithinTheStatementTimeout() throws Exception {
        ISequenceManager manager = new JdbcSequenceManager(leases.dataSource());
        WorkerLease lease = manager.borrow(request(ns));
        try (AutoCloseable lock = leases.stall(ns, lease.workerId())) {
            assertTimeoutPreemptively(BOUND, () -> assertThatThrownBy(
                    () -> manager.giveBack(lease, lease.highWaterMillis()))
                    .isInstanceOf(CenterUnavailableException.class));
        }
    }

    @Test
    void allocationOfALockedTagFailsWithinTheStatementTimeout() throws Exception {
        SegmentAllocator allocator = new JdbcSegmentAllocator(segments.dataSource(), JdbcSegmentAllocator.DEFAULT_TABLE,
                false);
        allocator.register(tag, 0, 10);
        try (AutoCloseable lock = segments.lockTag(tag)) {
            assertTimeoutPreemptively(BOUND, () -> assertThatThrownBy(() -> allocator.allocate(tag, 10))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining(tag));
        }
        assertThat(allocator.allocate(tag, 10).firstId()).isEqualTo(1);
    }
}

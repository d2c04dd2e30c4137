package io.github.idworker.test.snowflake;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.test.jdbc.JdbcSequenceManagerStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A worker's first borrow whose answer is lost (the centre committed the claim, the caller saw a timeout) is tried
 * again with the same owner token, within one lease ttl and three attempts: the worker starts on a slot of its own,
 * never on the one a lost answer claimed, and a centre that stays unavailable still fails the start, bounded. Over
 * the JDBC centre on H2; the fault is a lost answer, injected between the worker and the real centre.
 */
class FirstBorrowRetryTest {

    private JdbcSequenceManagerStore store;
    private String ns;

    @BeforeEach
    void setUp() {
        store = new JdbcSequenceManagerStore("jdbc:h2:mem:firstborrow;DB_CLOSE_DELAY=-1", "sa", "");
        ns = "fb-" + UUID.randomUUID().toString().substring(0, 12);
    }

    @AfterEach
    void tearDown() {
        store.deleteNamespace(ns);
        store.close();
    }

    private WorkerOptions options() {
        WorkerOptions options = WorkerOptions.builder().leaseTtl(Duration.ofSeconds(3)).maxSkew(Duration.ofMillis(50))
                .lossGuard(Duration.ofMillis(3050)).namespace(ns).shutdownHook(false).build();
        // a namespace in use for a while, so the first borrow need not wait out the fresh-namespace floor
        store.createAgedNamespace(ns, options.layout().workerCapacity(), options.layout().pinned(),
                options.leaseTtl(), options.maxSkew());
        return options;
    }

    @Test
    void aFirstBorrowWhoseAnswerIsLostIsTriedAgainWithTheSameOwnerAndTheWorkerStarts() {
        LosingAnswers centre = new LosingAnswers(new JdbcSequenceManager(store.dataSource()), 1);
        WorkerOptions options = options();
        try (DBIdWorker worker = (DBIdWorker) new DBIdWorker(centre, options).start()) {
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
                assertThat(ids.add(worker.nextId())).isTrue();
            }
            assertThat(centre.requests).hasSize(2);
            assertThat(centre.requests.get(1).owner()).isEqualTo(centre.requests.get(0).owner());
            int lostSlot = centre.lost.get(0).workerId();
            int used = worker.currentLease().workerId();
            // the lost answer's slot stays with that claim (never issued under, it runs out unrenewed)
            assertThat(used).isNotEqualTo(lostSlot);
            assertThat(ids).allSatisfy(id -> assertThat(options.layout().decode(id).workerId()).isEqualTo(used));
        }
    }

    @Test
    void aCentreThatStaysUnavailableFailsTheStartAfterThreeAttempts() {
        LosingAnswers centre = new LosingAnswers(new JdbcSequenceManager(store.dataSource()), Integer.MAX_VALUE);
        WorkerOptions options = options();
        assertThatThrownBy(() -> new DBIdWorker(centre, options).start()).satisfies(t -> {
            List<Throwable> chain = new ArrayList<>();
            for (Throwable c = t; c != null; c = c.getCause()) {
                chain.add(c);
            }
            assertThat(chain).anyMatch(CenterUnavailableException.class::isInstance);
        });
        assertThat(centre.requests).hasSize(3);
    }

    /** Passes every call to the real centre and loses the answers of the first {@code losses} borrows. */
    private static final class LosingAnswers implements ISequenceManager {
        private final ISequenceManager centre;
        private int losses;
        final List<LeaseRequest> requests = new ArrayList<>();
        final List<WorkerLease> lost = new ArrayList<>();

        LosingAnswers(ISequenceManager centre, int losses) {
            this.centre = centre;
            this.losses = losses;
        }

        @Override
        public synchronized WorkerLease borrow(LeaseRequest request) {
            requests.add(request);
            WorkerLease lease = centre.borrow(request);
            if (losses > 0) {
                losses--;
                lost.add(lease);
                throw new CenterUnavailableException("the answer to this borrow was lost (injected)", null);
            }
            return lease;
        }

        @Override
        public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
            return centre.renew(lease, highWaterMillis);
        }

        @Override
        public void giveBack(WorkerLease lease, long lastIssuedMillis) {
            centre.giveBack(lease, lastIssuedMillis);
        }
    }
}

package io.github.idworker.test.snowflake;

import io.github.idworker.CenterLoginRefusedException;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.WhenTaken;
import io.github.idworker.snowflake.WorkerIdPreference;
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
 * again under a new owner token, within one lease ttl and three attempts: the worker starts on a slot of its own,
 * never on the one a lost answer claimed; a preferred worker id the lost answer took is waited for until that claim
 * runs out; a refused login and a centre that stays unavailable still fail the start, bounded. Over the JDBC centre
 * on H2; the fault is a lost answer (or a refused login), injected between the worker and the real centre.
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
    void aFirstBorrowWhoseAnswerIsLostIsTriedAgainUnderANewOwnerAndTheWorkerStarts() {
        LosingAnswers centre = new LosingAnswers(new JdbcSequenceManager(store.dataSource()), 1);
        WorkerOptions options = options();
        try (DBIdWorker worker = (DBIdWorker) new DBIdWorker(centre, options).start()) {
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
                assertThat(ids.add(worker.nextId())).isTrue();
            }
            assertThat(centre.requests).hasSize(2);
            // a token of its own: a late claim of the lost attempt is never taken for the lease in use
            assertThat(centre.requests.get(1).owner()).isNotEqualTo(centre.requests.get(0).owner());
            int lostSlot = centre.lost.get(0).workerId();
            int used = worker.currentLease().workerId();
            // the lost answer's slot stays with that claim (never issued under, it runs out unrenewed)
            assertThat(used).isNotEqualTo(lostSlot);
            assertThat(ids).allSatisfy(id -> assertThat(options.layout().decode(id).workerId()).isEqualTo(used));
        }
    }

    @Test
    void aPreferredIdTakenByTheLostAnswerIsWaitedForUntilThatClaimRunsOut() {
        LosingAnswers centre = new LosingAnswers(new JdbcSequenceManager(store.dataSource()), 1);
        WorkerOptions options = WorkerOptions.builder().leaseTtl(Duration.ofSeconds(1)).maxSkew(Duration.ofMillis(50))
                .lossGuard(Duration.ofMillis(1050)).namespace(ns).shutdownHook(false)
                .preferredWorkerId(new WorkerIdPreference(2, "idworker.worker-id.preferred", "the test", WhenTaken.FAIL))
                .build();
        store.createAgedNamespace(ns, options.layout().workerCapacity(), options.layout().pinned(),
                options.leaseTtl(), options.maxSkew());
        try (DBIdWorker worker = (DBIdWorker) new DBIdWorker(centre, options).start()) {
            assertThat(centre.lost.get(0).workerId()).isEqualTo(2);
            assertThat(worker.currentLease().workerId()).isEqualTo(2);
            assertThat(options.layout().decode(worker.nextId()).workerId()).isEqualTo(2);
            // the lost attempt, the try refused as taken, the try after the wait
            assertThat(centre.requests).hasSize(3);
        }
    }

    @Test
    void aRefusedLoginIsNotTriedAgain() {
        LosingAnswers centre = new LosingAnswers(new JdbcSequenceManager(store.dataSource()), 0) {
            @Override
            public synchronized WorkerLease borrow(LeaseRequest request) {
                requests.add(request);
                throw new CenterLoginRefusedException("the database refused the login (injected)", null);
            }
        };
        WorkerOptions options = options();
        assertThatThrownBy(() -> new DBIdWorker(centre, options).start())
                .satisfies(t -> assertThat(causes(t)).anyMatch(CenterLoginRefusedException.class::isInstance));
        assertThat(centre.requests).hasSize(1);
    }

    @Test
    void aCentreThatStaysUnavailableFailsTheStartAfterThreeAttempts() {
        LosingAnswers centre = new LosingAnswers(new JdbcSequenceManager(store.dataSource()), Integer.MAX_VALUE);
        WorkerOptions options = options();
        assertThatThrownBy(() -> new DBIdWorker(centre, options).start())
                .satisfies(t -> assertThat(causes(t)).anyMatch(CenterUnavailableException.class::isInstance));
        assertThat(centre.requests).hasSize(3);
    }

    private static List<Throwable> causes(Throwable t) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable c = t; c != null; c = c.getCause()) {
            chain.add(c);
        }
        return chain;
    }

    /** Passes every call to the real centre and loses the answers of the first {@code losses} borrows. */
    private static class LosingAnswers implements ISequenceManager {
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

package io.github.idworker.test.lease;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.test.ManualClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The helpers and time model of the lease contract kit; the rules themselves are tested by its subclasses, a chain
 * that ends in {@link AbstractSequenceManagerContractTest}. See the latter for the chain and for how a centre runs
 * the kit.
 *
 * <p>A kit's tests may run at once where the build enables JUnit's parallel execution (the default test run does;
 * the exclusive one does not): each test has a store, a namespace and workers of its own, and most of their time
 * is spent waiting for the centre's clock (a new namespace's loss guard, a lease's expiry).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@Execution(ExecutionMode.CONCURRENT)
public abstract class SequenceManagerKit {

    /** Kit tests live in the subclasses of this package. */
    SequenceManagerKit() {
    }

    /** The ttl of the kit's plain borrows: no lease expires by itself while a test runs. */
    protected static final Duration TTL = Duration.ofSeconds(30);
    /** The ttl of the kit's workers: short, so a worker clock moved past its high-water is soon the centre's. */
    protected static final Duration WORKER_TTL = Duration.ofSeconds(1);
    protected static final Duration SKEW = Duration.ofMillis(500);
    /**
     * The loss guard of the kit's workers: their ttl + max-skew, the smallest allowed, so a new namespace's first
     * borrow waits as little as it can. Tests that give a worker a longer ttl or max-skew raise it with them.
     */
    protected static final Duration WORKER_LOSS_GUARD = WORKER_TTL.plus(SKEW);
    /** How far a centre's clock may be from this JVM's on the same machine, for floors judged by the centre. */
    protected static final long CENTRE_CLOCK_TOLERANCE_MS = 50;

    private final List<String> namespaces = new ArrayList<>();
    private final List<AbstractIdWorker> workers = new ArrayList<>();
    protected SequenceManagerStore store;

    /** The centre under test; called once per test. */
    protected abstract SequenceManagerStore createStore() throws Exception;

    /** The centre's clock minus this JVM's, measured when the test started. */
    private long centreOffset;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
        centreOffset = store.centreNowMillis() - System.currentTimeMillis();
    }

    /** The centre's clock now, as measured at the start of the test (no store call). */
    protected long centreNow() {
        return System.currentTimeMillis() + centreOffset;
    }

    @AfterEach
    void cleanUp() throws Exception {
        workers.forEach(AbstractIdWorker::close);
        for (String ns : namespaces) {
            store.deleteNamespace(ns);
        }
        store.close();
    }

    /** A fresh namespace, deleted after the test. */
    protected String newNamespace() {
        String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);
        namespaces.add(ns);
        return ns;
    }

    /** A worker clock set to the centre's clock now. */
    protected ManualClock workerClock() {
        return new ManualClock(store.centreNowMillis());
    }

    /**
     * A fresh namespace of {@code 2^workerBits} slots that looks long in use to the centre, with the kit workers'
     * ttl and max-skew ({@link SequenceManagerStore#createAgedNamespace}).
     */
    protected String agedNamespace(int workerBits) {
        String ns = newNamespace();
        store.createAgedNamespace(ns, 1 << workerBits, layout(workerBits).pinned(), WORKER_TTL, SKEW);
        return ns;
    }

    /** A clock that follows the centre's: this JVM's clock plus the difference to the centre's, measured once. */
    protected MillisClock centreClock() {
        return this::centreNow;
    }

    /**
     * Waits until the centre's clock is at most half of max-skew behind {@code workerMillis}, so a worker whose clock
     * a test moved forward to {@code workerMillis} may talk to the centre again.
     */
    protected void awaitCentreAt(long workerMillis) {
        long target = workerMillis - SKEW.toMillis() / 2;
        long now;
        while ((now = store.centreNowMillis()) < target) {
            sleepQuietly(Math.max(1, Math.min(100, target - now)));
        }
    }

    /**
     * Lets the centre's clock pass the current millisecond. Loss floors are the centre's clock + ttl + max-skew in
     * whole milliseconds, and a lease whose floor lies ahead gets that floor + 1 as its first high-water, so a loss
     * found in the very millisecond of such a borrow would get a floor one below it; the tests model losses that
     * come later, as they do outside a test.
     */
    protected static void afterThisMillisecond() {
        long now = System.currentTimeMillis();
        while (System.currentTimeMillis() <= now + 1) {
            Thread.onSpinWait();
        }
    }

    protected LeaseRequest request(String ns, int slotCount, long workerNow) {
        return request(ns, slotCount, workerNow, TTL);
    }

    /** A borrow as a kit worker would send it ({@link #WORKER_TTL}); use it in namespaces of kit workers. */
    protected LeaseRequest workerRequest(String ns, int slotCount, long workerNow) {
        return request(ns, slotCount, workerNow, WORKER_TTL);
    }

    /** A borrow with a lease of {@code ttl}. */
    protected LeaseRequest request(String ns, int slotCount, long workerNow, Duration ttl) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), ttl, workerNow, SKEW, "test-host", 42,
                layout(Integer.numberOfTrailingZeros(slotCount)).pinned());
    }

    /** The layout every worker of the kit uses, with {@code workerBits} worker bits. */
    protected static SnowflakeLayout layout(int workerBits) {
        return SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, workerBits, 12);
    }

    /** The lease {@code worker} holds: it has one from its start until it is closed. */
    protected static WorkerLease leaseOf(AbstractIdWorker worker) {
        return Objects.requireNonNull(worker.currentLease(), "the worker holds no lease");
    }

    /** A worker over {@code manager} that renews only when the test says so. */
    protected AbstractIdWorker worker(ISequenceManager manager, String ns, int workerBits, MillisClock clock,
                                      BackwardsPolicy policy) {
        return start(manager, options(ns, layout(workerBits), clock).backwardsPolicy(policy).build());
    }

    /** The kit's worker settings: manual renewal, no shutdown hook, a 200 ms fence wait. */
    protected WorkerOptions.Builder options(String ns, SnowflakeLayout layout, MillisClock clock) {
        return WorkerOptions.builder()
                .namespace(ns)
                .layout(layout)
                .leaseTtl(WORKER_TTL)
                .maxSkew(SKEW)
                .lossGuard(WORKER_LOSS_GUARD)
                .maxBackward(Duration.ofMillis(10))
                .backwardsPolicy(BackwardsPolicy.FAIL)
                .fenceWait(Duration.ofMillis(200))
                .clock(clock)
                .renewAutomatically(false)
                .shutdownHook(false);
    }

    /** Starts a worker that the kit closes after the test. */
    protected AbstractIdWorker start(ISequenceManager manager, WorkerOptions options) {
        AbstractIdWorker w = new AbstractIdWorker(manager, options) {
        };
        workers.add(w);
        return w.start();
    }

    protected static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

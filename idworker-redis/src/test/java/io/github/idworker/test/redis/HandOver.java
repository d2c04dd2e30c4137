package io.github.idworker.test.redis;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.test.ManualClock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A hand-over of the one slot of a namespace between two real workers, for tests of lost lease records: a
 * worker's clock follows real time while it starts (so it can wait for a floor ahead), then moves only when
 * {@link #issue} moves it, so both workers issue the same number of identifiers in every millisecond and any
 * overlap of their timestamps shows up as duplicates.
 */
final class HandOver {

    /** Short, so a floor of Redis now + ttl + max-skew is waited out in about 1.5 s. */
    static final Duration TTL = Duration.ofSeconds(1);
    static final Duration SKEW = Duration.ofMillis(500);
    /** How far the successor's clock is behind the previous holder's last identifier: well inside max-skew. */
    static final long BEHIND_MILLIS = 150;
    static final int IDS_PER_MILLI = 36;
    static final int MILLIS = 300;
    /** One slot: every identifier of either worker carries worker id 0. */
    static final SnowflakeLayout LAYOUT = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 12);

    private HandOver() {
    }

    /**
     * Starts a worker of {@code ns} whose clock runs with real time from its current reading until
     * {@code start()} returned; afterwards it stands still until a test moves it.
     */
    static AbstractIdWorker start(ISequenceManager manager, String ns, ManualClock clock) {
        WorkerOptions options = WorkerOptions.builder()
                .namespace(ns)
                .layout(LAYOUT)
                .leaseTtl(TTL)
                .maxSkew(SKEW)
                .lossGuard(TTL.plus(SKEW))
                .maxBackward(Duration.ofMillis(10))
                .backwardsPolicy(BackwardsPolicy.FAIL)
                .fenceWait(Duration.ofMillis(200))
                .clock(clock)
                .renewAutomatically(false)
                .shutdownHook(false)
                .build();
        AbstractIdWorker worker = new AbstractIdWorker(manager, options) {
        };
        long base = clock.millis();
        long startedNanos = System.nanoTime();
        Thread follower = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                clock.set(base + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "hand-over-clock");
        follower.start();
        try {
            return worker.start();
        } finally {
            follower.interrupt();
            try {
                follower.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link #IDS_PER_MILLI} identifiers in each of {@link #MILLIS} milliseconds, moving the clock by hand. */
    static List<Long> issue(AbstractIdWorker worker, ManualClock clock) {
        List<Long> ids = new ArrayList<>(IDS_PER_MILLI * MILLIS);
        for (int ms = 0; ms < MILLIS; ms++) {
            for (int i = 0; i < IDS_PER_MILLI; i++) {
                ids.add(worker.nextId());
            }
            clock.advance(1);
        }
        return ids;
    }

    /** What the successor did: its identifiers, how many of them its predecessor had issued, and its floor. */
    record Successor(List<Long> ids, int duplicates, long floorMillis) {
    }

    /**
     * Starts a successor of the slot whose clock is {@link #BEHIND_MILLIS} behind the last of {@code idsOfA},
     * lets it issue like {@link #issue} and prints the figures under {@code what}. The worker goes into
     * {@code workers}, for the test to close.
     */
    static Successor successor(ISequenceManager manager, String ns, List<Long> idsOfA, List<AbstractIdWorker> workers,
                               String what) {
        long lastOfA = lastTimestamp(idsOfA);
        ManualClock clock = new ManualClock(lastOfA - BEHIND_MILLIS);
        AbstractIdWorker b = start(manager, ns, clock);
        workers.add(b);
        List<Long> idsOfB = issue(b, clock);
        int duplicates = duplicates(idsOfA, idsOfB);
        long floor = b.currentLease().floorMillis();
        System.out.printf("%s, successor %d ms behind: A issued %d, B issued %d, B's floor is %d ms after A's last "
                + "id, duplicates %d%n", what, BEHIND_MILLIS, idsOfA.size(), idsOfB.size(), floor - lastOfA, duplicates);
        return new Successor(idsOfB, duplicates, floor);
    }

    /** The timestamp of the last of {@code ids}, in epoch ms. */
    static long lastTimestamp(List<Long> ids) {
        return LAYOUT.decode(ids.get(ids.size() - 1)).timestamp().toEpochMilli();
    }

    /** How many identifiers of {@code later} were already issued in {@code earlier} (or twice in {@code later}). */
    static int duplicates(List<Long> earlier, List<Long> later) {
        Set<Long> seen = new HashSet<>(earlier);
        int duplicates = 0;
        for (long id : later) {
            if (!seen.add(id)) {
                duplicates++;
            }
        }
        return duplicates;
    }
}

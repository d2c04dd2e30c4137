package io.github.idworker.serial;

import io.github.idworker.LastFailure;
import io.github.idworker.segment.SegmentStatus;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The in-memory counters of one serial rule that a {@link SerialNumbers} implementation keeps for
 * {@link SerialNumbers#ruleStatuses()}: cheap enough for a path that runs once per call (a {@link LongAdder} add
 * and a few volatile writes, next to a Redis round trip), and never reset, so meters over them only grow.
 * Thread-safe.
 */
public final class SerialRuleStats {

    private final String rule;
    private final LongAdder issued = new LongAdder();
    private final LongAdder refills = new LongAdder();
    private final LongAdder refillNanos = new LongAdder();
    private final LongAdder waits = new LongAdder();
    private final LastFailure lastFailure = new LastFailure();
    private volatile @Nullable String period;
    private volatile long stock = -1;
    private volatile long lastRefillSize;

    /** @param rule the rule name */
    public SerialRuleStats(String rule) {
        this.rule = rule;
    }

    /** A take of {@code count} numbers of {@code period} succeeded and left {@code left} in the stock. */
    public void issued(String period, int count, long left) {
        issued.add(count);
        this.stock = left;
        if (this.period != period) {
            this.period = period;
        }
        lastFailure.succeeded();
    }

    /** A call found the stock short and waited for a refill. */
    public void waited() {
        waits.increment();
    }

    /** A refill of {@code size} numbers, which took {@code nanos}, was made available. */
    public void refilled(long nanos, long size) {
        refills.increment();
        refillNanos.add(nanos);
        lastRefillSize = size;
    }

    /** A call failed with {@code e}. */
    public void failed(Throwable e) {
        lastFailure.failed(e);
    }

    /**
     * Adds the counters of an in-process generator that stops serving the rule (its period ended, or the rule
     * was re-read with other settings), so the rule's totals survive it.
     */
    public void retire(SegmentStatus generator) {
        issued.add(generator.issued());
        refills.add(generator.refills());
        refillNanos.add(generator.refillNanos());
        waits.add(generator.waits());
    }

    /** The status of a rule served from this node's own counters ({@code store} names where the stock lives). */
    public SerialRuleStatus status(String store) {
        return new SerialRuleStatus(rule, store, period, stock, issued.sum(), refills.sum(), refillNanos.sum(),
                lastRefillSize, waits.sum(), lastFailure.failing(), lastFailure.failure(), lastFailure.at());
    }

    /**
     * The status of a rule served in process: the retired totals plus the generator serving {@code period} now
     * ({@code null} when none does) plus {@code earlier}, generators of earlier periods not yet retired, so the
     * totals never go back while a period changes. Period, stock and failure are the current generator's.
     */
    public SerialRuleStatus status(String store, String period, @Nullable SegmentStatus current,
                                   List<SegmentStatus> earlier) {
        if (current == null) {
            return status(store);
        }
        long issuedSum = issued.sum() + current.issued();
        long refillsSum = refills.sum() + current.refills();
        long nanosSum = refillNanos.sum() + current.refillNanos();
        long waitsSum = waits.sum() + current.waits();
        for (SegmentStatus e : earlier) {
            issuedSum += e.issued();
            refillsSum += e.refills();
            nanosSum += e.refillNanos();
            waitsSum += e.waits();
        }
        return new SerialRuleStatus(rule, store, period, current.remaining(), issuedSum, refillsSum, nanosSum,
                current.current() == null ? 0 : current.current().size(), waitsSum, current.failing(),
                current.lastFailure(), current.lastFailureAt());
    }
}

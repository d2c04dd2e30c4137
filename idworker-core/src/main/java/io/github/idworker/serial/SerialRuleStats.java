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
    /** The last number taken in {@link #period} by this node, -1 before the first; kept by shared stocks only. */
    private volatile long lastNumber = -1;

    /** @param rule the rule name */
    public SerialRuleStats(String rule) {
        this.rule = rule;
    }

    /**
     * A take of {@code count} numbers of {@code period} succeeded, its last number {@code last}, and left
     * {@code left} in the stock.
     */
    public void issued(String period, int count, long left, long last) {
        issued.add(count);
        this.stock = left;
        this.lastNumber = last;
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

    /**
     * A call failed with {@code e}. A single take refused for the period's {@code max} means the shared stock holds
     * nothing more of that period: it is recorded as its last number taken, so the period shows no number left.
     */
    public void failed(Throwable e) {
        if (e instanceof SerialExhaustedException x) {
            this.stock = 0;
            this.lastNumber = x.getMax();
            this.period = x.getPeriod();
        }
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

    /**
     * The status of a rule served from one stock shared by every node ({@code store} names where it lives): the
     * period's numbers left are {@code max} minus the last number this node took, the stock counting as left.
     *
     * @param known the rule as this node last read it, or {@code null} before it read it
     * @param nowMillis the clock that says which period is current
     */
    public SerialRuleStatus status(String store, @Nullable SerialRule known, long nowMillis) {
        String p = period;
        long last = lastNumber;
        long left = known == null || last < 0 || !current(known, p, nowMillis) ? -1 : Math.max(0, known.max() - last);
        return status(store, p, stock, known, left, issued.sum(), refills.sum(), refillNanos.sum(), lastRefillSize,
                waits.sum(), lastFailure.failing(), lastFailure.failure(), lastFailure.at());
    }

    /**
     * The status of a rule served in process: the retired totals plus the generator serving {@code period} now
     * ({@code null} when none does) plus {@code earlier}, generators of earlier periods not yet retired, so the
     * totals never go back while a period changes. Period, stock and failure are the current generator's; the
     * period's numbers left are {@code max} minus {@code reservedTo}, plus the generator's stock.
     *
     * @param known the rule as this node last read it, or {@code null} before it read it
     * @param nowMillis the clock that says which period is current
     * @param reservedTo the highest number of {@code period} the store said was reserved when this node last
     *        reserved (its {@code max} once it refused for it), -1 before the first reservation
     */
    public SerialRuleStatus status(String store, @Nullable SerialRule known, long nowMillis, long reservedTo,
                                   String period, @Nullable SegmentStatus current, List<SegmentStatus> earlier) {
        if (current == null) {
            return status(store, this.period, this.stock, known, -1, issued.sum(), refills.sum(), refillNanos.sum(), lastRefillSize,
                    waits.sum(), lastFailure.failing(), lastFailure.failure(), lastFailure.at());
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
        long left = known == null || reservedTo < 0 || !current(known, period, nowMillis) ? -1
                : Math.max(0, known.max() - reservedTo) + current.remaining();
        return status(store, period, current.remaining(), known, left, issuedSum, refillsSum, nanosSum,
                current.current() == null ? 0 : current.current().size(), waitsSum, current.failing(),
                current.lastFailure(), current.lastFailureAt());
    }

    /** Whether {@code period} is the one {@code rule}'s zone shows at {@code nowMillis}. */
    private static boolean current(SerialRule rule, @Nullable String period, long nowMillis) {
        return period != null && period.equals(rule.period(rule.date(nowMillis)));
    }

    private SerialRuleStatus status(String store, @Nullable String period, long stock, @Nullable SerialRule known,
                                    long periodRemaining, long issued, long refills, long nanos, long lastRefill,
                                    long waits, boolean failing, @Nullable String failure,
                                    java.time.@Nullable Instant failedAt) {
        return new SerialRuleStatus(rule, store, period, stock, known == null ? -1 : known.start(),
                known == null ? -1 : known.max(), periodRemaining, issued, refills, nanos, lastRefill, waits, failing,
                failure, failedAt);
    }
}

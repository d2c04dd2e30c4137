package io.github.idworker.serial;

import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * What one {@link SerialNumbers} implementation remembers in memory about one rule, for meters, health and
 * operators; taking it never calls a store. The counters only grow over the implementation's life.
 *
 * @param rule the rule name
 * @param store {@code local} (in-process ranges) or {@code redis} (one stock shared by every node)
 * @param period the period of the last hand-out, e.g. {@code 20261123}, or {@code null} before the first
 * @param stock numbers left as this node saw them last: for {@code local} the rest of the ranges in memory, for
 *        {@code redis} what the stock in Redis held after this node's last take; -1 before the first
 * @param start the rule's first number of every period, as this node last read the rule; -1 before it read it
 * @param max the rule's last number of every period ({@code SerialRule#max()}), as this node last read the rule;
 *        -1 before it read it
 * @param periodRemaining numbers of the current period that no one has taken yet, as this node last saw them:
 *        for {@code redis} {@code max} minus the last number this node took (the shared stock counts as left),
 *        for {@code local} {@code max} minus the highest number this node reserved in the store plus what it holds
 *        in memory (other nodes' reserved ranges count as taken); -1 when not known: this node has taken nothing
 *        in the period its clock shows now (none since its start, or the period reset since)
 * @param issued serials this node handed out
 * @param refills ranges reserved in the database and made available (by this node)
 * @param refillNanos time those refills took, in nanoseconds
 * @param lastRefillSize numbers of the last refill, 0 before the first
 * @param waits calls that found the stock short and waited for a refill
 * @param failing whether memory says the rule can no longer serve: the last call failed ({@code redis}), or
 *        nothing is left in memory and the last refill failed ({@code local})
 * @param lastFailure the last failure, as text, or {@code null}
 * @param lastFailureAt when it happened, or {@code null} when not known
 */
public record SerialRuleStatus(String rule, String store, @Nullable String period, long stock, long start,
                               long max, long periodRemaining, long issued, long refills, long refillNanos, long lastRefillSize, long waits, boolean failing,
                               @Nullable String lastFailure, @Nullable Instant lastFailureAt) {

    /**
     * This status with the rule marked failing for {@code why} when {@code why} is present: a rule refused by
     * {@link SerialRules} cannot serve, whatever its counters say. The time is left out ({@code null}): a refusal
     * lasts until the row is put right, it does not age.
     */
    public SerialRuleStatus refusedFor(java.util.Optional<String> why) {
        return why.isEmpty() ? this : new SerialRuleStatus(rule, store, period, stock, start, max, periodRemaining,
                issued, refills, refillNanos, lastRefillSize, waits, true, why.get(), null);
    }
}

package io.github.idworker.spring.boot.actuate;

import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * The body of {@code GET /actuator/idworker}: every generator of the context as its process holds it in memory.
 * The five arrays are always present, empty when the application does not use the mode; their names and the
 * fields listed in docs/operations.md are a contract that status pages read. Times are ISO-8601 strings, durations
 * milliseconds; failures are redacted of credentials before they get here.
 *
 * @param workers the snowflake workers and their leases
 * @param segments the in-process segment tags
 * @param sequences the strictly ordered Redis sequences
 * @param serialRules the serial number rules
 * @param pools the ID pools
 */
public record IdWorkerReport(List<Worker> workers, List<SegmentTag> segments, List<Sequence> sequences,
                             List<SerialRule> serialRules, List<Pool> pools) {

    /**
     * One snowflake worker.
     *
     * @param bean the bean name
     * @param mode {@code REDIS}, {@code DB}, or the class name of a worker of another kind
     * @param namespace the id space
     * @param state {@code issuing}, {@code fenced}, {@code not-started} or {@code closed}
     * @param workerId the leased worker id, {@code null} without a lease
     * @param floor the lease's floor: issues only timestamps above it
     * @param highWater the lease's stored high-water: issues only timestamps up to it
     * @param millisToHighWater how long the worker can issue if its centre stops answering now; negative when fenced
 * @param leaseTtlMillis the lease ttl ({@code idworker.lease.ttl}): a renewal moves the high-water to about this
 *        far ahead of the worker's clock
 * @param heartbeatMillis how often the worker renews ({@code idworker.lease.heartbeat-interval}, ttl / 3 by default)
     * @param endOfLife the last instant the worker's layout can encode ({@code idworker.snowflake.epoch} plus
     *        {@code 2^timestamp-bits - 1} milliseconds): after it no identifier can be issued in this namespace
     * @param holder this host and process id
     * @param leaseSwitches how often the worker moved to another worker id
     * @param fenceTrips how often a caller found the high-water reached and waited for a renewal
     * @param issued identifiers issued by this worker
     * @param lastRenewalFailure the last failed renewal since the last good one, or {@code null}
     */
    public record Worker(String bean, String mode, String namespace, String state, @Nullable Integer workerId,
                         @Nullable String floor, @Nullable String highWater, @Nullable Long millisToHighWater,
                         long leaseTtlMillis, long heartbeatMillis, String endOfLife, String holder, long leaseSwitches, long fenceTrips, long issued,
                         @Nullable String lastRenewalFailure) {
    }

    /**
     * A range of numbers, both ends included.
     *
     * @param start the first number
     * @param end the last number
     * @param next the number handed out next from this range, {@code end + 1} once used up; {@code null} where
     *        this node cannot know it
     */
    public record Range(long start, long end, @Nullable Long next) {
    }

    /**
     * One in-process segment tag.
     *
     * @param tag the tag
     * @param current the range numbers are taken from, or {@code null} before the first load
     * @param nextReady whether the next range is loaded and waiting
     * @param step the step of the current range
     * @param remaining numbers left in memory (rest of the current range plus the next one)
     * @param loading whether a load from the database is in flight
     * @param issued numbers handed out
     * @param refills ranges loaded
     * @param refillMillis time spent loading, in all
     * @param failedRefills loads that failed
     * @param waits calls that had to wait for a load
     * @param lastFailure why the last load failed, when it did, or {@code null}
     * @param lastFailureAt when it failed, or {@code null}
     */
    public record SegmentTag(String tag, @Nullable Range current, boolean nextReady, int step, long remaining,
                             boolean loading, long issued, long refills, long refillMillis, long failedRefills,
                             long waits, @Nullable String lastFailure, @Nullable String lastFailureAt) {
    }

    /**
     * One strictly ordered Redis sequence, as this node saw it (the range in Redis is shared by every node). It
     * names no Redis key: the endpoint may be served on a public port.
     *
     * @param tag the tag
     * @param lastIssued the last number this node received, -1 before the first
     * @param lastRange the last range this node installed, or {@code null}
     * @param issued numbers this node received
     * @param scriptCalls {@code segment-next} script calls this node made (combined calls share one)
     * @param coalescedCalls calls served by a script call shared with another call of this node
     * @param installedAhead ranges this node installed ahead of the current one
     * @param refills refills this node ran
     * @param refillMillis time they took, in all
     * @param discardedRanges ranges this node allocated but could not install (gaps)
     * @param waits calls that took part in, or waited for, a refill
     * @param failing whether this node's last call failed
     * @param lastFailure the last failure, or {@code null}
     * @param lastFailureAt when it happened, or {@code null}
     */
    public record Sequence(String tag, long lastIssued, @Nullable Range lastRange, long issued, long scriptCalls,
                           long coalescedCalls, long installedAhead, long refills, long refillMillis,
                           long discardedRanges, long waits, boolean failing, @Nullable String lastFailure,
                           @Nullable String lastFailureAt) {
    }

    /**
     * One serial number rule.
     *
     * @param rule the rule name
     * @param bean the bean serving it
     * @param store {@code local} or {@code redis}
     * @param period the period of the last hand-out, or {@code null}
     * @param stock numbers left as this node saw them last, -1 before the first hand-out
 * @param start the rule's first number of every period, -1 before this node read the rule
 * @param max the rule's last number of every period: nothing is issued past it; -1 before this node read the rule
 * @param periodRemaining numbers of the current period not yet taken, as this node last saw them ({@code max} minus
 *        the last number taken, or for {@code local} minus the highest number reserved, plus this node's stock); -1
 *        when this node has taken nothing in the period its clock shows now
     * @param issued serials this node handed out
     * @param refills refills made available by this node
     * @param refillMillis time they took, in all
     * @param lastRefillSize numbers of the last refill
     * @param waits calls that waited for a refill
     * @param failing whether memory says the rule can no longer serve
     * @param lastFailure the last failure, or {@code null}
     * @param lastFailureAt when it happened, or {@code null}
     */
    public record SerialRule(String rule, String bean, String store, @Nullable String period, long stock, long start,
                             long max, long periodRemaining, long issued, long refills, long refillMillis, long lastRefillSize, long waits, boolean failing,
                             @Nullable String lastFailure, @Nullable String lastFailureAt) {
    }

    /**
     * One ID pool, as this node saw it.
     *
     * @param entity the entity key
     * @param level IDs in the pool when this node last saw it, -1 before it saw it
     * @param levelAt when that was, or {@code null}
     * @param thresholdLevel below this level a refill starts
     * @param maxPoolSize the most IDs the pool holds
     * @param checkIntervalMillis how often this node checks the pool
     * @param checkedAt when this node's last refill check finished, or {@code null}
     * @param lastCheckOk whether that check left the pool at or above its threshold
     * @param lastCheckFailure why it failed or could not refill, or {@code null}
     * @param stale whether no check finished for longer than {@code 3 × check-interval + lock-ttl}
     * @param takeFailing whether this node's last take failed for want of Redis
     * @param lastTakeFailure the last such failure, or {@code null}
     * @param issued IDs this node handed out
     * @param refills refills this node appended
     * @param refillMillis time they took, in all
     * @param emptyRefusals takes refused because the pool held too few IDs
     * @param rateLimited takes refused by the entity's rate limit
     */
    public record Pool(String entity, long level, @Nullable String levelAt, long thresholdLevel, long maxPoolSize,
                       long checkIntervalMillis, @Nullable String checkedAt, boolean lastCheckOk,
                       @Nullable String lastCheckFailure, boolean stale, boolean takeFailing,
                       @Nullable String lastTakeFailure, long issued, long refills, long refillMillis,
                       long emptyRefusals, long rateLimited) {
    }
}

package io.github.idworker.spring.boot.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The health of the generators of one mode, built from the entries of the {@code idworker} endpoint: UP while no
 * entry is down, DOWN as soon as one is, with every entry as a detail under its name. It reads memory only (the
 * entries come from an {@link IdWorkerReporter}), so a probe never calls a store, answers at once while one is
 * down, and reports DOWN only where memory says the mode can no longer issue. A mode without generators yet is
 * UP: its first call creates them. The four instances and their rules are built by the static factories.
 *
 * @param <T> the entry type
 */
public final class GeneratorsHealthIndicator<T> implements HealthIndicator {

    /**
     * How long a failure keeps a segment tag, sequence or serial rule DOWN when no call came since: a tag asked
     * for during an outage and never again must not hold the component DOWN after the store is back. 60 s is
     * well above every bounded wait ({@code max-wait}, 3 s by default), so a tag in use fails again, and stays
     * DOWN, long before its failure ages out. Measured against the failure's wall-clock time, as reported.
     */
    public static final Duration FAILURE_WINDOW = Duration.ofSeconds(60);

    private final Supplier<List<T>> entries;
    private final Function<T, String> name;
    private final BiPredicate<T, Instant> down;
    private final Clock clock;

    private GeneratorsHealthIndicator(Supplier<List<T>> entries, Function<T, String> name,
                                      BiPredicate<T, Instant> down, Clock clock) {
        this.entries = entries;
        this.name = name;
        this.down = down;
        this.clock = clock;
    }

    /** Whether a failure at {@code at} (ISO text; {@code null} when unknown, which counts as recent) is recent. */
    static boolean recent(@Nullable String at, Instant now) {
        return at == null || Instant.parse(at).plus(FAILURE_WINDOW).isAfter(now);
    }

    /**
     * Health component {@code idworkerSegments}: DOWN when an in-process segment tag has nothing left in memory
     * (current range used up, no next range loaded) and its last load from the database failed, so its next call
     * can only wait and fail. A failed prefetch with numbers still in memory stays UP; the failure shows in the
     * tag's {@code lastFailure}. A failure older than {@link #FAILURE_WINDOW} with no load since (nobody called
     * the tag again) no longer counts; it still shows in the details.
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.SegmentTag> segments(IdWorkerReporter reporter) {
        return segments(reporter, Clock.systemUTC());
    }

    static GeneratorsHealthIndicator<IdWorkerReport.SegmentTag> segments(IdWorkerReporter reporter, Clock clock) {
        return new GeneratorsHealthIndicator<>(reporter::segments, IdWorkerReport.SegmentTag::tag,
                (t, now) -> t.remaining() == 0 && t.lastFailure() != null && recent(t.lastFailureAt(), now), clock);
    }

    /**
     * Health component {@code idworkerSequences}: DOWN when the last call of a Redis sequence on this node failed
     * (Redis unreachable, or the range ran out and the refill from the database failed or timed out). Every call
     * of a sequence goes to Redis, so the last call's outcome is the freshest thing memory knows; the next good
     * call makes it UP again. A failure older than {@link #FAILURE_WINDOW} with no call since no longer counts;
     * it still shows in the details.
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.Sequence> sequences(IdWorkerReporter reporter) {
        return sequences(reporter, Clock.systemUTC());
    }

    static GeneratorsHealthIndicator<IdWorkerReport.Sequence> sequences(IdWorkerReporter reporter, Clock clock) {
        return new GeneratorsHealthIndicator<>(reporter::sequences, IdWorkerReport.Sequence::tag,
                (q, now) -> q.failing() && recent(q.lastFailureAt(), now), clock);
    }

    /**
     * Health component {@code idworkerSerials}: DOWN when a rule can no longer serve as far as memory knows: for
     * Redis serials its last call on this node failed (stock empty and no refill in time, Redis unreachable,
     * period exhausted); for local serials nothing is left in memory and the last refill failed. A failed
     * background refill with stock left stays UP. A rule refused by its rule lookup (its row was edited into
     * another shape) is DOWN until the row is put right. A failure older than {@link #FAILURE_WINDOW} with no
     * call since no longer counts; it still shows in the details. A batch refused because it is larger than what
     * is left in the period is not a failure (single takes still work).
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.SerialRule> serials(IdWorkerReporter reporter) {
        return new GeneratorsHealthIndicator<>(reporter::serialRules, IdWorkerReport.SerialRule::rule,
                (r, now) -> r.failing() && recent(r.lastFailureAt(), now), Clock.systemUTC());
    }

    /**
     * Health component {@code idworkerPools}: DOWN when a pool is empty as this node saw it last (a take was
     * refused, or a check found nothing), when this node's last take failed for want of Redis, or when its
     * refill checks are stale: none finished for
     * {@code 3 × check-interval + lock-ttl}. Stale means DOWN rather than UNKNOWN because UNKNOWN ranks below UP
     * in Spring Boot's default status order and would vanish from the aggregate, so nobody would hear that this
     * node's refiller is stuck while the pool drains. A check that failed recently with IDs left stays UP, the
     * failure in {@code lastCheckFailure}.
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.Pool> pools(IdWorkerReporter reporter) {
        return new GeneratorsHealthIndicator<>(reporter::pools, IdWorkerReport.Pool::entity,
                (p, now) -> p.level() == 0 || p.takeFailing() || p.stale(), Clock.systemUTC());
    }

    @Override
    public Health health() {
        boolean anyDown = false;
        Instant now = clock.instant();
        Map<String, Object> details = new LinkedHashMap<>();
        for (T entry : entries.get()) {
            anyDown |= down.test(entry, now);
            details.put(name.apply(entry), entry);
        }
        return (anyDown ? Health.down() : Health.up()).withDetails(details).build();
    }
}

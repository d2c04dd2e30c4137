package io.github.idworker.spring.boot.actuate;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
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

    private final Supplier<List<T>> entries;
    private final Function<T, String> name;
    private final Predicate<T> down;

    private GeneratorsHealthIndicator(Supplier<List<T>> entries, Function<T, String> name, Predicate<T> down) {
        this.entries = entries;
        this.name = name;
        this.down = down;
    }

    /**
     * Health component {@code idworkerSegments}: DOWN when an in-process segment tag has nothing left in memory
     * (current range used up, no next range loaded) and its last load from the database failed, so its next call
     * can only wait and fail. A failed prefetch with numbers still in memory stays UP; the failure shows in the
     * tag's {@code lastFailure}.
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.SegmentTag> segments(IdWorkerReporter reporter) {
        return new GeneratorsHealthIndicator<>(reporter::segments, IdWorkerReport.SegmentTag::tag,
                t -> t.remaining() == 0 && t.lastFailure() != null);
    }

    /**
     * Health component {@code idworkerSequences}: DOWN when the last call of a Redis sequence on this node failed
     * (Redis unreachable, or the range ran out and the refill from the database failed or timed out). Every call
     * of a sequence goes to Redis, so the last call's outcome is the freshest thing memory knows; the next good
     * call makes it UP again.
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.Sequence> sequences(IdWorkerReporter reporter) {
        return new GeneratorsHealthIndicator<>(reporter::sequences, IdWorkerReport.Sequence::tag,
                IdWorkerReport.Sequence::failing);
    }

    /**
     * Health component {@code idworkerSerials}: DOWN when a rule can no longer serve as far as memory knows: for
     * Redis serials its last call on this node failed (stock empty and no refill in time, Redis unreachable,
     * period exhausted); for local serials nothing is left in memory and the last refill failed. A failed
     * background refill with stock left stays UP.
     */
    public static GeneratorsHealthIndicator<IdWorkerReport.SerialRule> serials(IdWorkerReporter reporter) {
        return new GeneratorsHealthIndicator<>(reporter::serialRules, IdWorkerReport.SerialRule::rule,
                IdWorkerReport.SerialRule::failing);
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
                p -> p.level() == 0 || p.takeFailing() || p.stale());
    }

    @Override
    public Health health() {
        boolean anyDown = false;
        Map<String, Object> details = new LinkedHashMap<>();
        for (T entry : entries.get()) {
            anyDown |= down.test(entry);
            details.put(name.apply(entry), entry);
        }
        return (anyDown ? Health.down() : Health.up()).withDetails(details).build();
    }
}

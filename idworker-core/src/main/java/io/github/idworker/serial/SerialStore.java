package io.github.idworker.serial;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * The durable side of serial numbers: the rule table and, per rule and period, a high-water below which every
 * number has been reserved. The SPI behind both {@code RedisSerialNumbers} and {@link LocalSerialNumbers}.
 *
 * <p>The contract:
 * <ul>
 *   <li>The high-water of a (rule, period) only grows; reservations of it never overlap, whichever store
 *       instance (in whichever process) made them, and follow each other without holes from {@code start}.</li>
 *   <li>No reservation passes the rule's {@code max}: the last one ends exactly at {@code max}, later ones
 *       fail with {@link SerialExhaustedException}.</li>
 *   <li>A period whose stored high-water was moved back by hand (below the end of a reservation already made)
 *       gives {@link SerialPeriodMovedBackException} naming rule, period, where it is stored and both values —
 *       from every store instance, a new one included — and reserves nothing, until the high-water is raised
 *       again. A store restored as a whole from an older backup cannot be told apart from its past.</li>
 *   <li>Rules are registered idempotently; a rule already in the store stays as the store holds it (the store is
 *       the source of truth), and one whose shape differs is refused.</li>
 * </ul>
 * Implementations are thread-safe. Failures to reach the store surface as
 * {@link io.github.idworker.CenterUnavailableException} and reserve nothing.
 */
public interface SerialStore {

    /**
     * Registers {@code rule} unless the store holds a rule of that name, and returns the rule as the store holds
     * it.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException naming the first differing property when the
     *         stored rule's shape (prefix, date pattern, width, reset, zone) differs from {@code rule}'s
     */
    SerialRule register(SerialRule rule);

    /** The rule of that name as the store holds it, or empty. */
    Optional<SerialRule> find(String name);

    /**
     * Reserves the next numbers of {@code rule} in {@code period}: {@code count} of them, or as many as are left
     * below the rule's {@code max}.
     *
     * @param count at least 1
     * @throws SerialExhaustedException when the period's high-water already is the rule's {@code max}
     * @throws SerialPeriodMovedBackException when the period's high-water was moved back below numbers already
     *         reserved
     */
    SerialRange reserve(SerialRule rule, String period, int count);

    /** The period's high-water (the last number reserved), or empty when nothing was reserved in it yet. */
    OptionalLong highWater(String rule, String period);

    /**
     * The store as error messages name it, e.g. {@code table idworker_serial_rule at jdbc:mysql://db/orders};
     * never with credentials.
     */
    default String description() {
        return getClass().getSimpleName();
    }
}

package io.github.idworker.test.serial;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The serial store contract kit's tests of registration and lookup, run for every store by
 * {@link AbstractSerialStoreContractTest}: registration is idempotent under eight concurrent registrations; the
 * stored rule wins over changed tunables; a changed shape is refused naming the field, and so is another reset
 * for a rule whose record was lost; names differing only in case are two rules; an unknown rule is not found.
 */
abstract class AbstractSerialStoreRegistrationContractTest extends AbstractSerialStoreReservationContractTest {

    @Test
    void registrationIsIdempotentUnderEightConcurrentRegistrations() throws Exception {
        SerialRule rule = newRule(6).build();
        List<SerialStore> stores = newStores(REGISTRATIONS);
        List<SerialRule> held = onThreads(REGISTRATIONS, t -> () -> stores.get(t).register(rule));
        assertThat(held).hasSize(REGISTRATIONS).allSatisfy(h -> assertThat(h).isEqualTo(rule));
        assertThat(store.newStore().find(rule.name())).contains(rule);
        assertThat(store.newStore().register(rule)).isEqualTo(rule);

        String name = newRuleName();
        List<SerialRule> proposals = new ArrayList<>();
        for (int i = 0; i < REGISTRATIONS; i++) {
            proposals.add(SerialRule.builder(name).prefix("ORD").datePattern("yyyyMMdd").width(6)
                    .reset(SerialReset.DAILY).zone("Asia/Shanghai").max(900_000 + i).critical(i).build());
        }
        List<SerialRule> winners = onThreads(REGISTRATIONS, t -> () -> stores.get(t).register(proposals.get(t)));
        assertThat(new HashSet<>(winners)).as("every registration returns the one rule stored").hasSize(1);
        assertThat(proposals).contains(winners.get(0));
        assertThat(store.newStore().find(name)).contains(winners.get(0));
    }

    @Test
    void theStoredRuleWinsOverChangedTunables() {
        SerialRule rule = newRule(6).start(10).max(5_000).critical(20).minBatch(30).maxBatch(400).build();
        store.newStore().register(rule);
        SerialRule tuned = rule.toBuilder().start(1).max(999_999).critical(5).minBatch(10).maxBatch(20).build();
        SerialRule held = store.newStore().register(tuned);
        assertThat(held).isEqualTo(rule);
        assertThat(List.of(held.start(), held.max(), (long) held.critical(), (long) held.minBatch(),
                (long) held.maxBatch())).containsExactly(10L, 5_000L, 20L, 30L, 400L);
        assertThat(store.newStore().find(rule.name())).contains(rule);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"prefix", "date-pattern", "width", "reset", "zone"})
    void aChangedShapeFieldIsRefusedNamingItsProperty(String field) {
        SerialRule rule = newRule(6).build();
        store.newStore().register(rule);
        SerialRule.Builder changed = rule.toBuilder();
        switch (field) {
            case "prefix" -> changed.prefix("INV");
            case "date-pattern" -> changed.datePattern("ddMMyyyy");
            case "width" -> changed.width(7);
            case "reset" -> changed.reset(SerialReset.MONTHLY);
            case "zone" -> changed.zone("Europe/Berlin");
            default -> throw new IllegalArgumentException(field);
        }
        SerialRule other = changed.build();
        assertThat(rule.shapeDifferences(other)).containsExactly(field);
        assertThatThrownBy(() -> store.newStore().register(other))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(SerialRule.property(rule.name(), field)))
                .hasMessageContaining("'" + rule.valueOf(field) + "'")
                .hasMessageContaining("'" + other.valueOf(field) + "'");
        assertThat(store.newStore().find(rule.name())).as("the stored rule is unchanged").contains(rule);
    }

    /**
     * The rule's record is lost while the high-waters of its periods survive, and the next deployment configures
     * another reset with the same prefix and date pattern. The new reset's periods have no high-water, so
     * numbering would start again at 1 and print strings of the past again (a daily rule turned monthly prints
     * the same date): the registration is refused naming {@code reset}; the rule as it was registers again and
     * continues above its high-water.
     */
    @ParameterizedTest(name = "{0} to {1}")
    @CsvSource({"daily, monthly", "daily, never", "never, daily", "monthly, yearly"})
    void aRuleWhoseRecordWasLostCannotComeBackWithAnotherReset(String before, String after) {
        SerialRule rule = newRule(6).reset(SerialReset.parse(before)).build();
        SerialRule changed = rule.toBuilder().reset(SerialReset.parse(after)).build();
        LocalDate day = TODAY;
        String period = rule.reset().period(day);
        store.newStore().register(rule);
        assertThat(store.newStore().reserve(rule, period, 10).last()).isEqualTo(10);

        store.deleteRuleRecordOnly(rule.name());
        assertThatThrownBy(() -> store.newStore().register(changed))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(SerialRule.property(rule.name(), "reset")))
                .hasMessageContaining("'" + after + "'").hasMessageContaining("'" + before + "'")
                .hasMessageContaining("'" + period + "'");
        assertThat(store.newStore().find(rule.name())).as("nothing registered").isEmpty();

        assertThat(store.newStore().register(rule)).isEqualTo(rule);
        assertThat(store.newStore().reserve(rule, period, 1).first()).as("numbering continues above").isEqualTo(11);
    }

    @Test
    void findOfAnUnknownRuleIsEmpty() {
        String name = newRuleName();
        assertThat(store.newStore().find(name)).isEmpty();
        assertThat(store.newStore().highWater(name, DAY)).isEmpty();
    }

    /**
     * Rule names are case-sensitive, as the Redis keys built from them are: {@code order} and {@code Order} are
     * two rules with two high-waters (a case-insensitive collation, MySQL's default, would merge them).
     */
    @Test
    void ruleNamesDifferingOnlyInCaseAreTwoRules() {
        String lower = newRuleName();
        String upper = lower.toUpperCase(java.util.Locale.ROOT);
        ruleNames.add(upper);
        SerialStore s = store.newStore();
        SerialRule a = s.register(SerialRule.builder(lower).prefix("A").width(6).build());
        SerialRule b = s.register(SerialRule.builder(upper).prefix("B").width(6).build());
        assertThat(b.name()).isEqualTo(upper);
        assertThat(b.prefix()).isEqualTo("B");
        assertThat(s.find(lower).orElseThrow().prefix()).isEqualTo("A");
        assertThat(s.reserve(a, "all", 5)).isEqualTo(new SerialRange(lower, "all", 1, 5));
        assertThat(s.reserve(b, "all", 3)).isEqualTo(new SerialRange(upper, "all", 1, 3));
        assertThat(s.highWater(lower, "all")).hasValue(5);
        assertThat(s.highWater(upper, "all")).hasValue(3);
    }
}

package io.github.idworker.serial;

import io.github.idworker.IdWorkerConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A serial rule: every check names the property at fault; a valid rule prints strings that tell periods apart. */
class SerialRuleTest {

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    /** {@code ORD + yyyyMMdd + 6 digits}, reset daily in Shanghai: the rule most tests start from. */
    private static SerialRule.Builder order() {
        return SerialRule.builder("order").prefix("ORD").datePattern("yyyyMMdd").width(6).reset(SerialReset.DAILY)
                .zone("Asia/Shanghai");
    }

    private static long millis(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    /** Asserts that building fails naming {@code idworker.serial.rules.order.<field>}, in the message too. */
    private static void failsNaming(String field, Executable build) {
        failsNamingProperty("idworker.serial.rules.order." + field, build);
    }

    private static void failsNamingProperty(String property, Executable build) {
        assertThatThrownBy(build::execute)
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(property))
                .hasMessageStartingWith(property + ": ");
    }

    // ---- checks, each naming its property ----

    @Test
    void aDailyRuleMustPrintTheDay() {
        failsNaming("reset", () -> order().datePattern("yyyyMM").build());
        failsNaming("reset", () -> order().datePattern("MMdd").build());
        assertThatThrownBy(() -> order().datePattern("yyyyMM").build())
                .hasMessageContaining("'daily' needs a date-pattern holding yyyy, MM, dd")
                .hasMessageContaining("idworker.serial.rules.order.date-pattern is 'yyyyMM'");
    }

    @Test
    void aMonthlyRuleMustPrintYearAndMonth() {
        failsNaming("reset", () -> order().reset(SerialReset.MONTHLY).datePattern("yyyy").build());
        failsNaming("reset", () -> order().reset(SerialReset.MONTHLY).datePattern("MMdd").build());
        assertThat(order().reset(SerialReset.MONTHLY).datePattern("yyyyMM").build().reset())
                .isEqualTo(SerialReset.MONTHLY);
    }

    @Test
    void aYearlyRuleMustPrintTheYear() {
        failsNaming("reset", () -> order().reset(SerialReset.YEARLY).datePattern("").build());
        failsNaming("reset", () -> order().reset(SerialReset.YEARLY).datePattern("none").build());
        failsNaming("reset", () -> order().reset(SerialReset.YEARLY).datePattern(null).build());
        failsNaming("reset", () -> order().reset(SerialReset.YEARLY).datePattern("MMdd").build());
        assertThat(order().reset(SerialReset.YEARLY).datePattern("yyyy").build().period(LocalDate.of(2026, 11, 23)))
                .isEqualTo("2026");
    }

    @Test
    void anUnknownResetIsRefused() {
        failsNaming("reset", () -> order().reset("hourly"));
        failsNaming("reset", () -> order().reset((String) null));
        failsNaming("reset", () -> order().reset((SerialReset) null).build());
        assertThat(order().reset(" Monthly ").build().reset()).isEqualTo(SerialReset.MONTHLY);
    }

    @Test
    void theWidthIsRequiredAndBounded() {
        failsNaming("width", () -> SerialRule.builder("order").build());
        failsNaming("width", () -> order().width(0).build());
        failsNaming("width", () -> order().width(16).build());
        failsNaming("width", () -> order().width(-1).build());
        assertThat(order().width(1).build().max()).isEqualTo(9);
        assertThat(order().width(15).build().max()).isEqualTo(999_999_999_999_999L);
    }

    @Test
    void maxFitsTheWidthAndLiesAtOrAboveStart() {
        failsNaming("max", () -> order().width(3).max(1_000).build());
        failsNaming("max", () -> order().start(10).max(9).build());
        assertThatThrownBy(() -> order().width(3).max(1_000).build()).hasMessageContaining("at most 999");
        assertThat(order().width(3).max(999).build().max()).isEqualTo(999);
        assertThat(order().start(10).max(10).build().max()).isEqualTo(10);
    }

    @Test
    void startIsZeroOrMoreWithinTheWidth() {
        failsNaming("start", () -> order().start(-1).build());
        failsNaming("start", () -> order().width(2).start(100).build());
        assertThat(order().start(0).build().start()).isZero();
    }

    @Test
    void theZoneMustBeKnown() {
        failsNaming("zone", () -> order().zone("Mars/Olympus_Mons").build());
        failsNaming("zone", () -> order().zone("asia/shanghai").build());
        assertThatThrownBy(() -> order().zone("Mars/Olympus_Mons").build())
                .hasMessageContaining("unknown zone 'Mars/Olympus_Mons'");
        assertThat(order().zone(" Asia/Shanghai ").build().zone()).isEqualTo(SHANGHAI);
    }

    @Test
    void aRuleWithADateOrAResetNeedsAZone() {
        failsNaming("zone", () -> order().zone((String) null).build());
        failsNaming("zone", () -> order().zone(" ").build());
        failsNaming("zone", () -> order().zone((ZoneId) null).build());
        failsNaming("zone", () -> order().reset(SerialReset.NEVER).zone((String) null).build());
        SerialRule dateless = SerialRule.builder("order").prefix("T").width(4).build();
        assertThat(dateless.zone()).as("no date, no reset: the zone does not matter").isEqualTo(ZoneId.of("UTC"));
    }

    @ParameterizedTest(name = "prefix ''{0}''")
    @ValueSource(strings = {"{ORD}", "OR{", "OR D", " ORD", "ORD\t", "订单", "A.B", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"})
    void aPrefixOfOtherCharactersOrLongerThan32IsRefused(String prefix) {
        failsNaming("prefix", () -> order().prefix(prefix).build());
    }

    @Test
    void aPrefixOf32LettersDigitsUnderscoresAndDashesIsFine() {
        String longest = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-0123";
        assertThat(longest).hasSize(32);
        assertThat(order().prefix(longest).build().prefix()).isEqualTo(longest);
        assertThat(order().prefix(null).build().prefix()).isEmpty();
    }

    @ParameterizedTest(name = "date-pattern ''{0}''")
    @ValueSource(strings = {"yyyyM", "yy", "yyyyMMddyyyy", "yyyy-MM-dd", "yyyyMMd", "YYYYMMDD", "yyyyMMddHH", "ddd"})
    void aDatePatternOtherThanFixedWidthYearMonthAndDayIsRefused(String pattern) {
        failsNaming("date-pattern", () -> order().reset(SerialReset.NEVER).datePattern(pattern).build());
    }

    @Test
    void batchBoundsAndCriticalAreChecked() {
        failsNaming("min-batch", () -> order().minBatch(0).build());
        failsNaming("max-batch", () -> order().minBatch(100).maxBatch(99).build());
        failsNaming("max-batch", () -> order().maxBatch(SerialRule.MAX_BATCH_LIMIT + 1).build());
        failsNaming("critical", () -> order().maxBatch(500).critical(500).build());
        failsNaming("critical", () -> order().maxBatch(500).critical(501).build());
        failsNaming("critical", () -> order().critical(-1).build());
        SerialRule rule = order().minBatch(1).maxBatch(1).build();
        assertThat(rule.critical()).as("default critical below max-batch").isZero();
        assertThat(order().build().critical()).as("default critical is min-batch").isEqualTo(100);
    }

    @ParameterizedTest(name = "name ''{0}''")
    @ValueSource(strings = {"", "bad name", "a.b", "order{1}", "订单"})
    void aBadNameIsRefusedNamingItsPropertyPrefix(String name) {
        failsNamingProperty("idworker.serial.rules." + name, () -> SerialRule.builder(name));
    }

    @Test
    void aMissingOrLongNameIsRefused() {
        failsNamingProperty("idworker.serial.rules.null", () -> SerialRule.builder(null));
        String tooLong = "x".repeat(65);
        failsNamingProperty("idworker.serial.rules." + tooLong, () -> SerialRule.builder(tooLong));
        assertThatCode(() -> SerialRule.builder("x".repeat(64))).as("64 characters").doesNotThrowAnyException();
    }

    // ---- printing ----

    @Test
    void aSerialIsPrefixDateAndZeroPaddedNumber() {
        SerialRule rule = order().build();
        LocalDate date = rule.date(millis("2026-11-23T03:00:00Z"));
        assertThat(rule.format(rule.dateText(date), 42)).isEqualTo("ORD20261123000042");
        assertThat(rule.format(rule.dateText(date), 999_999)).isEqualTo("ORD20261123999999");
        assertThat(rule.format(rule.dateText(date), 0)).isEqualTo("ORD20261123000000");
    }

    @Test
    void theDateFieldsPrintInThePatternsOrder() {
        LocalDate date = LocalDate.of(2026, 3, 7);
        assertThat(order().datePattern("ddMMyyyy").build().dateText(date)).isEqualTo("07032026");
        assertThat(order().reset(SerialReset.MONTHLY).datePattern("MMyyyy").build().dateText(date)).isEqualTo("032026");
        SerialRule dateless = SerialRule.builder("order").prefix("T-").width(3).build();
        assertThat(dateless.dateText(date)).isEmpty();
        assertThat(dateless.format(dateless.dateText(date), 7)).isEqualTo("T-007");
        assertThat(order().prefix("").datePattern("none").reset(SerialReset.NEVER).build()
                .format("", 42)).isEqualTo("000042");
    }

    @Test
    void theDateAndTheDayTurnAtTheZonesMidnightNotUtcs() {
        SerialRule rule = order().build();
        long lastMillisOfTheDay = millis("2026-11-23T15:59:59.999Z");
        long firstMillisOfTheNext = millis("2026-11-23T16:00:00Z");
        assertThat(rule.date(lastMillisOfTheDay)).isEqualTo(LocalDate.of(2026, 11, 23));
        assertThat(rule.date(firstMillisOfTheNext)).isEqualTo(LocalDate.of(2026, 11, 24));
        assertThat(rule.period(rule.date(lastMillisOfTheDay))).isEqualTo("20261123");
        assertThat(rule.period(rule.date(firstMillisOfTheNext))).isEqualTo("20261124");
        assertThat(rule.format(rule.dateText(rule.date(firstMillisOfTheNext)), 1)).isEqualTo("ORD20261124000001");

        SerialRule utc = order().zone("UTC").build();
        assertThat(utc.period(utc.date(firstMillisOfTheNext))).isEqualTo("20261123");
        assertThat(utc.period(utc.date(millis("2026-11-23T23:59:59.999Z")))).isEqualTo("20261123");
        assertThat(utc.period(utc.date(millis("2026-11-24T00:00:00Z")))).isEqualTo("20261124");
    }

    @Test
    void monthlyYearlyAndNeverPeriodsHaveTheirKeys() {
        SerialRule monthly = order().reset(SerialReset.MONTHLY).build();
        assertThat(monthly.period(monthly.date(millis("2026-11-30T15:59:59.999Z")))).isEqualTo("202611");
        assertThat(monthly.period(monthly.date(millis("2026-11-30T16:00:00Z")))).isEqualTo("202612");
        assertThat(monthly.period(LocalDate.of(2026, 1, 31))).isEqualTo("202601");

        SerialRule yearly = order().reset(SerialReset.YEARLY).build();
        assertThat(yearly.period(yearly.date(millis("2026-12-31T15:59:59.999Z")))).isEqualTo("2026");
        assertThat(yearly.period(yearly.date(millis("2026-12-31T16:00:00Z")))).isEqualTo("2027");

        SerialRule never = order().reset(SerialReset.NEVER).build();
        assertThat(never.period(LocalDate.of(2026, 11, 23))).isEqualTo("all");
        assertThat(never.period(LocalDate.of(2031, 1, 1))).isEqualTo("all");
        assertThat(never.dateText(never.date(millis("2026-11-23T16:00:00Z"))))
                .as("a rule that never resets still prints the hand-out date").isEqualTo("20261124");
    }

    @Test
    void aPeriodsLastDayFollowsTheReset() {
        LocalDate date = LocalDate.of(2028, 2, 10);
        assertThat(SerialReset.DAILY.lastDay(date)).isEqualTo(date);
        assertThat(SerialReset.MONTHLY.lastDay(date)).isEqualTo(LocalDate.of(2028, 2, 29));
        assertThat(SerialReset.YEARLY.lastDay(date)).isEqualTo(LocalDate.of(2028, 12, 31));
        assertThat(SerialReset.NEVER.lastDay(date)).isEqualTo(LocalDate.MAX);
    }

    // ---- shape ----

    @Test
    void shapeDifferencesNameEachChangedShapeFieldInOrder() {
        SerialRule rule = order().build();
        assertThat(rule.shapeDifferences(rule.toBuilder().build())).isEmpty();
        assertThat(differs(rule, b -> b.prefix("INV"))).containsExactly("prefix");
        assertThat(differs(rule, b -> b.datePattern("ddMMyyyy"))).containsExactly("date-pattern");
        assertThat(differs(rule, b -> b.width(7))).containsExactly("width");
        assertThat(differs(rule, b -> b.reset(SerialReset.MONTHLY))).containsExactly("reset");
        assertThat(differs(rule, b -> b.zone("UTC"))).containsExactly("zone");
        assertThat(differs(rule, b -> b.zone("Asia/Shanghai"))).isEmpty();
        assertThat(differs(rule, b -> b.zone("UTC").width(8).prefix("X")))
                .containsExactly("prefix", "width", "zone");
    }

    @Test
    void tunablesAreNotShape() {
        SerialRule rule = order().build();
        SerialRule tuned = rule.toBuilder().start(5).max(500_000).critical(7).minBatch(10).maxBatch(20).build();
        assertThat(rule.shapeDifferences(tuned)).isEmpty();
        assertThat(tuned).isNotEqualTo(rule);
        assertThat(rule.toBuilder().build()).isEqualTo(rule).hasSameHashCodeAs(rule);
    }

    @Test
    void valuesAreReadByPropertyField() {
        SerialRule rule = order().start(3).max(900).critical(5).minBatch(10).maxBatch(50).build();
        assertThat(List.of("prefix", "date-pattern", "width", "start", "max", "reset", "zone", "critical",
                "min-batch", "max-batch").stream().map(rule::valueOf))
                .containsExactly("ORD", "yyyyMMdd", "6", "3", "900", "daily", "Asia/Shanghai", "5", "10", "50");
        assertThatThrownBy(() -> rule.valueOf("colour")).isInstanceOf(IllegalArgumentException.class);
        assertThat(SerialRule.property("order", "max")).isEqualTo("idworker.serial.rules.order.max");
    }

    private static List<String> differs(SerialRule rule, UnaryOperator<SerialRule.Builder> change) {
        return rule.shapeDifferences(change.apply(rule.toBuilder()).build());
    }
}

package io.github.idworker.serial.redis;

import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRuleStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stock's window without date arithmetic ({@link SerialStock#holds}) never claims an instant whose date in the
 * rule's zone is another day, also around the zone's next offset changes (found from now, so on any date),
 * including a zone whose change happens at midnight and one that moves by 30 minutes.
 */
class SerialStockTest {

    private static final long MINUTE = TimeUnit.MINUTES.toMillis(1);
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    @ParameterizedTest
    @ValueSource(strings = {"Europe/Berlin", "America/Havana", "Australia/Lord_Howe", "America/Santiago", "UTC",
            "Asia/Shanghai"})
    void holdsOnlyInstantsOfItsOwnDate(String zoneName) {
        ZoneId zone = ZoneId.of(zoneName);
        SerialRule rule = SerialRule.builder("order").prefix("ORD").datePattern("yyyyMMdd").width(6)
                .reset(SerialReset.DAILY).zone(zoneName).build();
        long now = System.currentTimeMillis();
        ZoneOffsetTransition next = zone.getRules().nextTransition(Instant.ofEpochMilli(now));
        // around the next two offset changes, or around now where the zone has none
        long[] centres = next == null ? new long[] {now}
                : new long[] {next.toEpochSecond() * 1000,
                        zone.getRules().nextTransition(next.getInstant()).toEpochSecond() * 1000};
        int held = 0;
        for (long centre : centres) {
            for (long created = centre - 26 * HOUR; created <= centre + 26 * HOUR; created += 37 * MINUTE) {
                LocalDate date = rule.date(created);
                SerialStock stock = new SerialStock(rule, date, created, RedisSerialOptions.defaults(),
                        new SerialRuleStats("order"));
                assertThat(stock.holds(created)).as("the creating instant itself").isTrue();
                for (long t = created - 2 * HOUR; t <= created + 27 * HOUR; t += 7 * MINUTE) {
                    if (stock.holds(t)) {
                        held++;
                        assertThat(rule.date(t)).as("date at %s of a stock created at %s in %s",
                                Instant.ofEpochMilli(t), Instant.ofEpochMilli(created), zone).isEqualTo(date);
                    }
                }
            }
        }
        assertThat(held).as("instants the window spared the date arithmetic").isPositive();
    }
}

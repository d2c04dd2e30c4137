package io.github.idworker.serial;

import org.jspecify.annotations.Nullable;

import java.time.LocalDate;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * When the number of a serial rule starts again at the rule's {@code start}: never, or at the first moment of
 * every day, month or year in the rule's zone. A rule that resets must print that period in its date, so the
 * strings of two periods never coincide.
 */
public enum SerialReset {

    /** One stock for ever; the date in the string, if any, is only the hand-out date. */
    NEVER("", "all"),
    /** A new stock every day; the date pattern must hold yyyy, MM and dd. */
    DAILY("yyyyMMdd", null),
    /** A new stock every month; the date pattern must hold yyyy and MM. */
    MONTHLY("yyyyMM", null),
    /** A new stock every year; the date pattern must hold yyyy. */
    YEARLY("yyyy", null);

    private final String neededFields;
    private final @Nullable String fixedPeriod;

    SerialReset(String neededFields, @Nullable String fixedPeriod) {
        this.neededFields = neededFields;
        this.fixedPeriod = fixedPeriod;
    }

    /** The property value, e.g. {@code daily}. */
    public String propertyValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code never}, {@code daily}, {@code monthly} or {@code yearly}, in any case; null when unknown. */
    public static @Nullable SerialReset parse(@Nullable String value) {
        if (value == null) {
            return null;
        }
        for (SerialReset r : values()) {
            if (r.name().equalsIgnoreCase(value.strip())) {
                return r;
            }
        }
        return null;
    }

    /** The date fields ({@code yyyy}, {@code MM}, {@code dd}) the rule's date pattern must hold. */
    String neededFields() {
        return neededFields;
    }

    /**
     * The key of the period {@code date} falls in: {@code 20261123} (daily), {@code 202611} (monthly),
     * {@code 2026} (yearly) or {@code all} (never).
     */
    public String period(LocalDate date) {
        if (fixedPeriod != null) {
            return fixedPeriod;
        }
        StringBuilder key = new StringBuilder(8);
        SerialDates.appendDigits(key, date.getYear(), 4);
        if (this != YEARLY) {
            SerialDates.appendDigits(key, date.getMonthValue(), 2);
        }
        if (this == DAILY) {
            SerialDates.appendDigits(key, date.getDayOfMonth(), 2);
        }
        return key.toString();
    }

    /**
     * The reset whose period keys look like {@code key} ({@code all}, or 8, 6 or 4 digits); {@code null} for a key
     * of no known form.
     */
    public static @Nullable SerialReset ofPeriod(@Nullable String key) {
        if ("all".equals(key)) {
            return NEVER;
        }
        if (key == null || key.isEmpty() || !key.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return switch (key.length()) {
            case 8 -> DAILY;
            case 6 -> MONTHLY;
            case 4 -> YEARLY;
            default -> null;
        };
    }

    /** The last day of the period {@code date} falls in; {@link LocalDate#MAX} for {@link #NEVER}. */
    public LocalDate lastDay(LocalDate date) {
        return switch (this) {
            case NEVER -> LocalDate.MAX;
            case DAILY -> date;
            case MONTHLY -> date.with(TemporalAdjusters.lastDayOfMonth());
            case YEARLY -> date.with(TemporalAdjusters.lastDayOfYear());
        };
    }
}

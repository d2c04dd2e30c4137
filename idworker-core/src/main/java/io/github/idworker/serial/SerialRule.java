package io.github.idworker.serial;

import io.github.idworker.IdWorkerConfigurationException;
import org.jspecify.annotations.Nullable;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One family of serial numbers, {@code prefix + date + zero-padded number}, such as {@code ORD20261123000042}.
 * A valid rule guarantees that its strings tell their periods apart: the number has a fixed width, the date
 * pattern has fixed-width fields only, and a rule that resets every day, month or year prints that period.
 *
 * <p>Every check names the property {@code idworker.serial.rules.<name>.<field>} and what is allowed, so a bad
 * rule fails startup with a message that says what to change.
 *
 * <p>The <em>shape</em> of a rule — prefix, date pattern, width, reset and zone — decides which strings it can
 * print; it never changes for a rule name once numbers were handed out (see {@link #shapeDifferences}). The
 * numbers' range and the stock sizes may be tuned at any time.
 */
public final class SerialRule {

    /** The properties of rule {@code <name>} live under {@code idworker.serial.rules.<name>.}. */
    public static final String PROPERTY_PREFIX = "idworker.serial.rules.";
    /** Widest number: 15 digits stay below 2<sup>53</sup>, where Redis Lua counts exactly. */
    public static final int MAX_WIDTH = 15;
    /** Largest refill. */
    public static final int MAX_BATCH_LIMIT = 1_000_000;
    public static final int DEFAULT_MIN_BATCH = 100;
    public static final int DEFAULT_MAX_BATCH = 10_000;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_-]{0,32}");

    private final String name;
    private final String prefix;
    private final String datePattern;
    private final List<String> dateTokens;
    private final int width;
    private final long start;
    private final long max;
    private final SerialReset reset;
    private final ZoneId zone;
    private final int critical;
    private final int minBatch;
    private final int maxBatch;

    private SerialRule(Builder b) {
        this.name = b.name;
        this.prefix = b.prefix;
        this.datePattern = b.datePattern;
        this.dateTokens = b.dateTokens;
        // build() refused a missing width and filled in the zone
        this.width = Objects.requireNonNull(b.width);
        this.start = b.start;
        this.max = b.max;
        this.reset = Objects.requireNonNull(b.reset);
        this.zone = Objects.requireNonNull(b.zone);
        this.critical = b.critical;
        this.minBatch = b.minBatch;
        this.maxBatch = b.maxBatch;
    }

    /** A builder for rule {@code name} (letters, digits, '_' and '-', at most 64). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding every setting of this rule, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.prefix(prefix).datePattern(datePattern).width(width).start(start).max(max).reset(reset).zone(zone)
                .critical(critical).minBatch(minBatch).maxBatch(maxBatch);
        return b;
    }

    /** The full property name of {@code field} of rule {@code name}, e.g. {@code idworker.serial.rules.order.width}. */
    public static String property(String name, String field) {
        return PROPERTY_PREFIX + name + "." + field;
    }

    public String name() {
        return name;
    }

    /** Text before the date, letters, digits, '_' and '-' only, possibly empty. */
    public String prefix() {
        return prefix;
    }

    /** Pattern of the date, made of {@code yyyy}, {@code MM} and {@code dd}; empty for none. */
    public String datePattern() {
        return datePattern;
    }

    /** Digits of the number, zero-padded. */
    public int width() {
        return width;
    }

    /** First number of every period. */
    public long start() {
        return start;
    }

    /** Last number of every period; nothing is issued past it. */
    public long max() {
        return max;
    }

    public SerialReset reset() {
        return reset;
    }

    /** The zone whose calendar gives the date and the period. */
    public ZoneId zone() {
        return zone;
    }

    /** Stock level at or below which a take starts a refill. */
    public int critical() {
        return critical;
    }

    /** Smallest refill. */
    public int minBatch() {
        return minBatch;
    }

    /** Largest refill, and the most numbers one call may take. */
    public int maxBatch() {
        return maxBatch;
    }

    /**
     * Checks the size of one call's batch.
     *
     * @throws IllegalArgumentException naming {@code count} and the allowed range, 1 to {@code max-batch}
     */
    public void checkCount(int count) {
        if (count < 1 || count > maxBatch) {
            throw new IllegalArgumentException("count must be 1 to " + maxBatch + " (max-batch of serial rule '"
                    + name + "'), was " + count);
        }
    }

    /** The calendar date of {@code epochMillis} in the rule's zone. */
    public LocalDate date(long epochMillis) {
        return LocalDate.ofInstant(Instant.ofEpochMilli(epochMillis), zone);
    }

    /** The period key of {@code date}: {@code 20261123}, {@code 202611}, {@code 2026} or {@code all}. */
    public String period(LocalDate date) {
        return reset.period(date);
    }

    /** The date text of {@code date}, empty when the rule prints no date. */
    public String dateText(LocalDate date) {
        return dateTokens.isEmpty() ? "" : SerialDates.format(dateTokens, date);
    }

    /** {@code prefix + dateText + number}, the number zero-padded to the width. */
    public String format(String dateText, long number) {
        StringBuilder out = new StringBuilder(prefix.length() + dateText.length() + width);
        out.append(prefix).append(dateText);
        SerialDates.appendDigits(out, number, width);
        return out.toString();
    }

    /**
     * The shape fields (prefix, date-pattern, width, reset, zone) in which {@code other} differs from this rule,
     * by property field name; empty when both print the same strings.
     */
    public List<String> shapeDifferences(SerialRule other) {
        List<String> fields = new ArrayList<>();
        if (!prefix.equals(other.prefix)) {
            fields.add("prefix");
        }
        if (!datePattern.equals(other.datePattern)) {
            fields.add("date-pattern");
        }
        if (width != other.width) {
            fields.add("width");
        }
        if (reset != other.reset) {
            fields.add("reset");
        }
        if (!zone.equals(other.zone)) {
            fields.add("zone");
        }
        return fields;
    }

    /** The shape fields by their property names, in a fixed order. */
    public static final List<String> SHAPE_FIELDS = List.of("prefix", "date-pattern", "width", "reset", "zone");

    /**
     * The shape as one text, {@code prefix=ORD;date-pattern=yyyyMMdd;width=6;reset=daily;zone=Asia/Shanghai}: the
     * rule table keeps it beside the fields, so an edit of a shape field in the table is caught.
     */
    public String shapeText() {
        StringBuilder b = new StringBuilder();
        for (String field : SHAPE_FIELDS) {
            if (b.length() > 0) {
                b.append(';');
            }
            b.append(field).append('=').append(valueOf(field));
        }
        return b.toString();
    }

    /**
     * The shape fields in which {@code shapeText} (as {@link #shapeText()} writes it) differs from this rule's
     * shape; every field when the text cannot be read.
     */
    public List<String> shapeDifferences(String shapeText) {
        Map<String, String> values = new HashMap<>();
        for (String part : shapeText.split(";", -1)) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                values.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        List<String> fields = new ArrayList<>();
        for (String field : SHAPE_FIELDS) {
            if (!valueOf(field).equals(values.get(field))) {
                fields.add(field);
            }
        }
        return fields;
    }

    /** The value of a field by its property name, as the rule table and the properties write it. */
    public String valueOf(String field) {
        return switch (field) {
            case "prefix" -> prefix;
            case "date-pattern" -> datePattern;
            case "width" -> Integer.toString(width);
            case "start" -> Long.toString(start);
            case "max" -> Long.toString(max);
            case "reset" -> reset.propertyValue();
            case "zone" -> zone.getId();
            case "critical" -> Integer.toString(critical);
            case "min-batch" -> Integer.toString(minBatch);
            case "max-batch" -> Integer.toString(maxBatch);
            default -> throw new IllegalArgumentException("no field " + field);
        };
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SerialRule r)) {
            return false;
        }
        return name.equals(r.name) && shapeDifferences(r).isEmpty() && start == r.start && max == r.max
                && critical == r.critical && minBatch == r.minBatch && maxBatch == r.maxBatch;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, prefix, datePattern, width, start, max, reset, zone, critical, minBatch, maxBatch);
    }

    @Override
    public String toString() {
        return "SerialRule[" + name + ": prefix '" + prefix + "', date-pattern '" + datePattern + "', width " + width
                + ", start " + start + ", max " + max + ", reset " + reset.propertyValue() + ", zone " + zone.getId()
                + ", critical " + critical + ", batch " + minBatch + ".." + maxBatch + "]";
    }

    /** Collects a rule's settings; {@link #build()} checks them together. */
    public static final class Builder {

        private final String name;
        private String prefix = "";
        private String datePattern = "";
        private List<String> dateTokens = List.of();
        private @Nullable Integer width;
        private long start = 1;
        private @Nullable Long maxSetting;
        private long max;
        private @Nullable SerialReset reset = SerialReset.NEVER;
        private @Nullable String zoneSetting;
        private @Nullable ZoneId zone;
        private @Nullable Integer criticalSetting;
        private int critical;
        private int minBatch = DEFAULT_MIN_BATCH;
        private int maxBatch = DEFAULT_MAX_BATCH;

        private Builder(String name) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IdWorkerConfigurationException(PROPERTY_PREFIX + name, "a rule name must be 1 to 64 letters, "
                        + "digits, '_' or '-', was '" + name + "'");
            }
            this.name = name;
        }

        /** Text before the date: letters, digits, '_' and '-', at most 32; null or empty for none. */
        public Builder prefix(@Nullable String prefix) {
            this.prefix = prefix == null ? "" : prefix;
            return this;
        }

        /** {@code yyyy}, {@code MM} and {@code dd} in any order, each at most once; null, empty or {@code none} for no date. */
        public Builder datePattern(@Nullable String datePattern) {
            this.datePattern = datePattern == null || datePattern.equalsIgnoreCase("none") ? "" : datePattern;
            return this;
        }

        /** Digits of the number, 1 to {@value SerialRule#MAX_WIDTH}; required. */
        public Builder width(int width) {
            this.width = width;
            return this;
        }

        /** First number of a period, zero or more; default 1. */
        public Builder start(long start) {
            this.start = start;
            return this;
        }

        /** Last number of a period, at least {@code start}, at most {@code 10^width − 1} (the default). */
        public Builder max(long max) {
            this.maxSetting = max;
            return this;
        }

        /** Default {@link SerialReset#NEVER}; required, so null is refused by {@link #build()}. */
        public Builder reset(@Nullable SerialReset reset) {
            this.reset = reset;
            return this;
        }

        /** {@code never}, {@code daily}, {@code monthly} or {@code yearly}. */
        public Builder reset(@Nullable String reset) {
            SerialReset parsed = SerialReset.parse(reset);
            if (parsed == null) {
                throw new IdWorkerConfigurationException(property(name, "reset"),
                        "must be never, daily, monthly or yearly, was '" + reset + "'");
            }
            this.reset = parsed;
            return this;
        }

        /** IANA zone id such as {@code Asia/Shanghai}; required when the rule prints a date or resets. */
        public Builder zone(@Nullable String zone) {
            this.zoneSetting = zone;
            this.zone = null;
            return this;
        }

        public Builder zone(@Nullable ZoneId zone) {
            this.zone = zone;
            this.zoneSetting = zone == null ? null : zone.getId();
            return this;
        }

        /** Stock level at or below which a take starts a refill, zero or more, below max-batch; default min-batch. */
        public Builder critical(int critical) {
            this.criticalSetting = critical;
            return this;
        }

        /** Smallest refill, at least 1; default {@value SerialRule#DEFAULT_MIN_BATCH}. */
        public Builder minBatch(int minBatch) {
            this.minBatch = minBatch;
            return this;
        }

        /** Largest refill, at least min-batch, at most {@value SerialRule#MAX_BATCH_LIMIT}; default {@value SerialRule#DEFAULT_MAX_BATCH}. */
        public Builder maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        /**
         * Checks the settings together.
         *
         * @throws IdWorkerConfigurationException naming the property at fault and what is allowed
         */
        public SerialRule build() {
            if (!PREFIX.matcher(prefix).matches()) {
                throw fail("prefix", "must be at most 32 letters, digits, '_' or '-', was '" + prefix + "'");
            }
            List<String> tokens = SerialDates.tokens(datePattern);
            if (tokens == null) {
                throw fail("date-pattern", "must be made of yyyy, MM and dd (digits only, fixed width, each at most "
                        + "once), or none, was '" + datePattern + "'");
            }
            dateTokens = List.copyOf(tokens);
            if (reset == null) {
                throw fail("reset", "is required: never, daily, monthly or yearly");
            }
            for (String needed : new String[] {"yyyy", "MM", "dd"}) {
                if (reset.neededFields().contains(needed) && !tokens.contains(needed)) {
                    throw fail("reset", "'" + reset.propertyValue() + "' needs a date-pattern holding "
                            + String.join(", ", splitFields(reset.neededFields())) + " so the strings of two periods "
                            + "differ, but " + property(name, "date-pattern") + " is '" + datePattern + "'");
                }
            }
            if (width == null) {
                throw fail("width", "is required: the digits of the zero-padded number, 1 to " + MAX_WIDTH);
            }
            if (width < 1 || width > MAX_WIDTH) {
                throw fail("width", "must be 1 to " + MAX_WIDTH + ", was " + width);
            }
            long widest = pow10(width) - 1;
            if (start < 0 || start > widest) {
                throw fail("start", "must be 0 to " + widest + " (width " + width + "), was " + start);
            }
            max = maxSetting == null ? widest : maxSetting;
            if (max > widest) {
                throw fail("max", max + " has more digits than width " + width + " allows; at most " + widest);
            }
            if (max < start) {
                throw fail("max", "must be at least start " + start + ", was " + max);
            }
            if (zone == null) {
                if (zoneSetting == null || zoneSetting.isBlank()) {
                    if (!tokens.isEmpty() || reset != SerialReset.NEVER) {
                        throw fail("zone", "is required for a rule with a date or a reset: the IANA zone whose "
                                + "midnight starts a new date, e.g. Asia/Shanghai or UTC");
                    }
                    zone = ZoneId.of("UTC");
                } else {
                    try {
                        zone = ZoneId.of(zoneSetting.strip());
                    } catch (DateTimeException e) {
                        throw fail("zone", "unknown zone '" + zoneSetting + "'; use an IANA id such as Asia/Shanghai, "
                                + "Europe/Berlin or UTC");
                    }
                }
            }
            if (minBatch < 1) {
                throw fail("min-batch", "must be at least 1, was " + minBatch);
            }
            if (maxBatch < minBatch || maxBatch > MAX_BATCH_LIMIT) {
                throw fail("max-batch", "must be min-batch (" + minBatch + ") to " + MAX_BATCH_LIMIT + ", was "
                        + maxBatch);
            }
            critical = criticalSetting == null ? Math.min(minBatch, maxBatch - 1) : criticalSetting;
            if (critical < 0 || critical >= maxBatch) {
                throw fail("critical", "must be 0 to max-batch − 1 (" + (maxBatch - 1) + "), was " + critical);
            }
            return new SerialRule(this);
        }

        private static List<String> splitFields(String fields) {
            // the needed fields of a reset are always valid tokens
            return Objects.requireNonNull(SerialDates.tokens(fields));
        }

        private IdWorkerConfigurationException fail(String field, String message) {
            return new IdWorkerConfigurationException(property(name, field), message);
        }

        private static long pow10(int n) {
            long p = 1;
            for (int i = 0; i < n; i++) {
                p *= 10;
            }
            return p;
        }
    }
}

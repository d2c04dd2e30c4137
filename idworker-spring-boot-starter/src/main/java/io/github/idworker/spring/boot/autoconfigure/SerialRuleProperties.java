package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.serial.SerialReset;
import org.jspecify.annotations.Nullable;

/**
 * One serial rule registered at startup: strings {@code prefix + date + number}, e.g. prefix "ORD",
 * date-pattern "yyyyMMdd" and width 6 give "ORD20261123000042". Unset values take the defaults named.
 * Bound to {@code idworker.serial.rules.<name>.*}.
 */
public class SerialRuleProperties {

    /**
     * Text before the date: at most 32 letters, digits, '_' or '-'; none by default.
     */
    private @Nullable String prefix;

    /**
     * Pattern of the date after the prefix, made of "yyyy", "MM" and "dd" (each at most once), or "none"; no
     * date by default.
     */
    private @Nullable String datePattern;

    /**
     * Digits of the zero-padded number, 1 to 15; required.
     */
    private @Nullable Integer width;

    /**
     * First number of every period. Defaults to 1.
     */
    private @Nullable Long start;

    /**
     * Last number of every period; nothing is handed out past it. Defaults to the largest number of "width"
     * digits.
     */
    private @Nullable Long max;

    /**
     * When the number starts again at "start"; "daily", "monthly" and "yearly" need a date-pattern that
     * holds that period. Defaults to never.
     */
    private @Nullable SerialReset reset;

    /**
     * IANA time zone whose calendar gives the date and the period, such as "Asia/Shanghai"; required with a
     * date-pattern or a reset.
     */
    private @Nullable String zone;

    /**
     * Stock level at or below which a take starts a refill in the background, below "max-batch". Defaults
     * to "min-batch".
     */
    private @Nullable Integer critical;

    /**
     * Fewest numbers one refill reserves. Defaults to 100.
     */
    private @Nullable Integer minBatch;

    /**
     * Most numbers one refill reserves, and the most one call may take; at most 1000000. Defaults to 10000.
     */
    private @Nullable Integer maxBatch;

    public @Nullable String getPrefix() {
        return this.prefix;
    }

    public void setPrefix(@Nullable String prefix) {
        this.prefix = prefix;
    }

    public @Nullable String getDatePattern() {
        return this.datePattern;
    }

    public void setDatePattern(@Nullable String datePattern) {
        this.datePattern = datePattern;
    }

    public @Nullable Integer getWidth() {
        return this.width;
    }

    public void setWidth(@Nullable Integer width) {
        this.width = width;
    }

    public @Nullable Long getStart() {
        return this.start;
    }

    public void setStart(@Nullable Long start) {
        this.start = start;
    }

    public @Nullable Long getMax() {
        return this.max;
    }

    public void setMax(@Nullable Long max) {
        this.max = max;
    }

    public @Nullable SerialReset getReset() {
        return this.reset;
    }

    public void setReset(@Nullable SerialReset reset) {
        this.reset = reset;
    }

    public @Nullable String getZone() {
        return this.zone;
    }

    public void setZone(@Nullable String zone) {
        this.zone = zone;
    }

    public @Nullable Integer getCritical() {
        return this.critical;
    }

    public void setCritical(@Nullable Integer critical) {
        this.critical = critical;
    }

    public @Nullable Integer getMinBatch() {
        return this.minBatch;
    }

    public void setMinBatch(@Nullable Integer minBatch) {
        this.minBatch = minBatch;
    }

    public @Nullable Integer getMaxBatch() {
        return this.maxBatch;
    }

    public void setMaxBatch(@Nullable Integer maxBatch) {
        this.maxBatch = maxBatch;
    }
}

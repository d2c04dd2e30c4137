package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.serial.SerialReset;

/**
 * One serial rule registered at startup: strings {@code prefix + date + number}, e.g. prefix "ORD",
 * date-pattern "yyyyMMdd" and width 6 give "ORD20261123000042". Unset values take the defaults named.
 * Bound to {@code idworker.serial.rules.<name>.*}.
 */
public class SerialRuleProperties {

    /**
     * Text before the date: at most 32 letters, digits, '_' or '-'; none by default.
     */
    private String prefix;

    /**
     * Pattern of the date after the prefix, made of "yyyy", "MM" and "dd" (each at most once), or "none"; no
     * date by default.
     */
    private String datePattern;

    /**
     * Digits of the zero-padded number, 1 to 15; required.
     */
    private Integer width;

    /**
     * First number of every period. Defaults to 1.
     */
    private Long start;

    /**
     * Last number of every period; nothing is handed out past it. Defaults to the largest number of "width"
     * digits.
     */
    private Long max;

    /**
     * When the number starts again at "start"; "daily", "monthly" and "yearly" need a date-pattern that
     * holds that period. Defaults to never.
     */
    private SerialReset reset;

    /**
     * IANA time zone whose calendar gives the date and the period, such as "Asia/Shanghai"; required with a
     * date-pattern or a reset.
     */
    private String zone;

    /**
     * Stock level at or below which a take starts a refill in the background, below "max-batch". Defaults
     * to "min-batch".
     */
    private Integer critical;

    /**
     * Fewest numbers one refill reserves. Defaults to 100.
     */
    private Integer minBatch;

    /**
     * Most numbers one refill reserves, and the most one call may take; at most 1000000. Defaults to 10000.
     */
    private Integer maxBatch;

    public String getPrefix() {
        return this.prefix;
    }

    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    public String getDatePattern() {
        return this.datePattern;
    }

    public void setDatePattern(String datePattern) {
        this.datePattern = datePattern;
    }

    public Integer getWidth() {
        return this.width;
    }

    public void setWidth(Integer width) {
        this.width = width;
    }

    public Long getStart() {
        return this.start;
    }

    public void setStart(Long start) {
        this.start = start;
    }

    public Long getMax() {
        return this.max;
    }

    public void setMax(Long max) {
        this.max = max;
    }

    public SerialReset getReset() {
        return this.reset;
    }

    public void setReset(SerialReset reset) {
        this.reset = reset;
    }

    public String getZone() {
        return this.zone;
    }

    public void setZone(String zone) {
        this.zone = zone;
    }

    public Integer getCritical() {
        return this.critical;
    }

    public void setCritical(Integer critical) {
        this.critical = critical;
    }

    public Integer getMinBatch() {
        return this.minBatch;
    }

    public void setMinBatch(Integer minBatch) {
        this.minBatch = minBatch;
    }

    public Integer getMaxBatch() {
        return this.maxBatch;
    }

    public void setMaxBatch(Integer maxBatch) {
        this.maxBatch = maxBatch;
    }
}

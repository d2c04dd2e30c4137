package io.github.idworker.serial.redis;

import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRuleStats;
import io.github.idworker.serial.SerialStockEmptyException;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The Redis keys and fixed script arguments of one (rule, period) stock, worked out once when a call first meets
 * the period, so a take of one number builds no string and no list. Guarantees: every key of the stock (the stock
 * hash, its refill lock, its demand buckets) carries the rule's one hash tag, so each script runs on one Redis
 * Cluster slot; the stock's expiry is counted from the end of its period in the rule's zone.
 */
final class SerialStock {

    /** Length of one demand bucket. */
    static final long BUCKET_MILLIS = TimeUnit.MINUTES.toMillis(5);
    /** Buckets of the last hour, the current one included. */
    static final int BUCKETS = 12;
    /** A demand bucket outlives the hour a refill reads by five minutes, then expires: nobody resets it. */
    static final String BUCKET_TTL_MILLIS = Long.toString(TimeUnit.MINUTES.toMillis(65));
    private static final long PERIOD_GRACE_MILLIS = TimeUnit.DAYS.toMillis(2);

    final SerialRule rule;
    final LocalDate date;
    final String dateText;
    final String period;
    final String tag;
    final String stockKey;
    final String lockKey;
    final long expireAtMillis;
    /** The window in which the rule's date is {@link #date} for certain (see {@link #holds}). */
    private final long fromMillis;
    private final long untilMillis;

    final String maxText;
    final String takeContext;
    /** The arguments of a take of one number, the most frequent call: built once, not per call. */
    private final List<String> argsOfOne;
    private final String checkRun;
    /** The failure of a take Redis did not answer in time; one supplier per stock, not one per call. */
    final Supplier<SerialStockEmptyException> takeTimedOut;
    final SerialRuleStats stats;
    private volatile @Nullable BucketKeys takeKeys;

    private record BucketKeys(long bucket, List<String> keys) {
    }

    /**
     * @param date the rule's date at {@code nowMillis}
     * @param nowMillis the clock reading that gave {@code date}
     */
    SerialStock(SerialRule rule, LocalDate date, long nowMillis, RedisSerialOptions options, SerialRuleStats stats) {
        this.rule = rule;
        this.fromMillis = nowMillis;
        this.untilMillis = sameDateUntil(rule.zone(), date, nowMillis);
        this.stats = stats;
        this.date = date;
        this.dateText = rule.dateText(date);
        this.period = rule.period(date);
        this.tag = "{" + options.keyPrefix() + ":serial:" + rule.name() + "}";
        this.stockKey = tag + ":" + period;
        this.lockKey = stockKey + ":lock";
        this.maxText = Long.toString(rule.max());
        this.takeContext = "serial-take of rule '" + rule.name() + "' period " + period;
        this.checkRun = options.checkRunId() ? "1" : "0";
        this.argsOfOne = List.of("1", checkRun, maxText, BUCKET_TTL_MILLIS);
        long maxWaitMillis = options.maxWait().toMillis();
        this.takeTimedOut = () -> new SerialStockEmptyException(rule.name(), period, "Redis did not answer the take "
                + "of serial rule '" + rule.name() + "' period " + period + " within " + maxWaitMillis + " ms ("
                + RedisSerialOptions.MAX_WAIT_PROPERTY + "); numbers it may still take are skipped, never handed out. "
                + "Check that Redis is up, or raise " + RedisSerialOptions.MAX_WAIT_PROPERTY + ".");
        LocalDate last = rule.reset().lastDay(date);
        this.expireAtMillis = last.equals(LocalDate.MAX) ? 0
                : last.plusDays(1).atTime(LocalTime.MIDNIGHT).atZone(rule.zone()).toInstant().toEpochMilli()
                        + PERIOD_GRACE_MILLIS;
    }

    /**
     * Whether the rule's date at {@code nowMillis} is this stock's date, without date arithmetic: true only inside
     * the window from the clock reading that created the stock to the end of its day or the zone's next offset
     * change, whichever comes first. Outside it the caller works the date out.
     */
    boolean holds(long nowMillis) {
        return nowMillis >= fromMillis && nowMillis < untilMillis;
    }

    /**
     * The end of the window after {@code nowMillis} in which the date in {@code zone} stays {@code date}: within
     * one offset the local date only grows with the instant, so it is {@code date} from {@code nowMillis} until the
     * next day begins at that offset or the offset changes.
     */
    private static long sameDateUntil(ZoneId zone, LocalDate date, long nowMillis) {
        Instant now = Instant.ofEpochMilli(nowMillis);
        ZoneRules zoneRules = zone.getRules();
        long until = date.plusDays(1).atStartOfDay().toEpochSecond(zoneRules.getOffset(now)) * 1000;
        ZoneOffsetTransition next = zoneRules.nextTransition(now);
        return next == null ? until : Math.min(until, next.toEpochSecond() * 1000);
    }

    /** The demand bucket of {@code nowMillis}: its number of 5-minute steps since the epoch. */
    static long bucket(long nowMillis) {
        return Math.floorDiv(nowMillis, BUCKET_MILLIS);
    }

    /**
     * The stock's life in Redis counted from now: the rest of its period by this node's clock plus the grace.
     * Relative, because Redis expires by its own clock; at least the grace, so a node whose clock already
     * shows the period over still installs a stock that lives long enough to serve the calls that chose it.
     */
    long ttlMillis(long nowMillis) {
        return expireAtMillis == 0 ? 0 : Math.max(expireAtMillis - nowMillis, PERIOD_GRACE_MILLIS);
    }

    String useKey(long bucket) {
        return tag + ":use:" + bucket;
    }

    /** The arguments of {@code serial-take.lua} for {@code count} numbers. */
    List<String> takeArgs(int count) {
        return count == 1 ? argsOfOne : List.of(Integer.toString(count), checkRun, maxText, BUCKET_TTL_MILLIS);
    }

    /** The keys of a take in {@code bucket}; built once per bucket, as a take runs thousands of times a second. */
    List<String> takeKeys(long bucket) {
        BucketKeys k = takeKeys;
        if (k == null || k.bucket != bucket) {
            k = new BucketKeys(bucket, List.of(stockKey, useKey(bucket)));
            takeKeys = k;
        }
        return k.keys;
    }
}

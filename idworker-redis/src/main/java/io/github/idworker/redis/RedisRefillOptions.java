package io.github.idworker.redis;

import io.github.idworker.IdWorkerConfigurationException;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings every Redis store shares that hands out numbers from a stock refilled from a database under a
 * lock: the key prefix, how long a refill lock outlives an owner that died holding it, and how long one call waits
 * in all. Guarantees: an options object only exists with every value inside the range its store declares;
 * {@link Builder#build()} checks the shared settings first, then the store's own, and rejects the first bad one
 * with an {@link IdWorkerConfigurationException} naming the property, the allowed range and the value.
 *
 * <p>A store's options extend this class, and their builder extends {@link Builder} with itself as {@code B}, so
 * the shared setters return the store's builder and chain into its own setters.
 */
public abstract class RedisRefillOptions {

    /** Default first part of every key's hash tag, the same for every Redis store and the Redis lease centre. */
    public static final String DEFAULT_KEY_PREFIX = "idworker";

    private final String keyPrefix;
    private final Duration lockTtl;
    private final Duration maxWait;

    /** Takes the shared settings from a builder whose {@link Builder#build()} checked them. */
    protected RedisRefillOptions(Builder<?, ?> b) {
        this.keyPrefix = b.keyPrefix;
        this.lockTtl = b.lockTtl;
        this.maxWait = b.maxWait;
    }

    /** First part of every key's hash tag ({@code idworker.redis.key-prefix}). */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** How long a refill lock lives when its owner dies holding it. */
    public Duration lockTtl() {
        return lockTtl;
    }

    /** Longest one call waits in all, for Redis and for a refill. */
    public Duration maxWait() {
        return maxWait;
    }

    /**
     * A duration property of a store: its name, its default and the range it must lie in ({@code max} null for no
     * upper bound). {@link #check} is the one place such a value is validated, so every store words its refusal
     * alike.
     */
    protected record DurationProperty(String name, Duration defaultValue, Duration min, @Nullable Duration max) {

        /** Public, so that a store's options in another package can declare its properties. */
        public DurationProperty {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(min, "min");
            if (defaultValue.compareTo(min) < 0 || max != null && defaultValue.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + ": default " + defaultValue + " lies outside its range");
            }
        }

        /**
         * @return {@code value} when it lies in the range
         * @throws IdWorkerConfigurationException naming the property, the range and the value otherwise
         */
        public Duration check(@Nullable Duration value) {
            if (value == null || value.compareTo(min) < 0 || max != null && value.compareTo(max) > 0) {
                String range = max == null ? "at least " + text(min) : "from " + text(min) + " to " + text(max);
                throw new IdWorkerConfigurationException(name, "must be " + range + ", was "
                        + (value == null ? "null" : text(value)));
            }
            return value;
        }

        /** As a property would be written: {@code 10m}, {@code 100ms}; the largest unit that states it exactly. */
        static String text(Duration d) {
            if (d.isZero()) {
                return "0ms";
            }
            if (d.getNano() == 0) {
                long s = d.getSeconds();
                return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
            }
            long nanos = d.toNanos();
            return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms"
                    : nanos % 1_000 == 0 ? nanos / 1_000 + "us" : nanos + "ns";
        }
    }

    /**
     * Collects the shared settings; {@link #build()} validates them, then the store's own.
     *
     * @param <O> the store's options
     * @param <B> the store's builder itself, which the shared setters return
     */
    public abstract static class Builder<O extends RedisRefillOptions, B extends Builder<O, B>> {
        private final DurationProperty lockTtlProperty;
        private final DurationProperty maxWaitProperty;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration lockTtl;
        private Duration maxWait;

        /**
         * @param lockTtl the store's lock-ttl property, whose default this builder starts with
         * @param maxWait the store's max-wait property, whose default this builder starts with
         */
        protected Builder(DurationProperty lockTtl, DurationProperty maxWait) {
            this.lockTtlProperty = lockTtl;
            this.maxWaitProperty = maxWait;
            this.lockTtl = lockTtl.defaultValue();
            this.maxWait = maxWait.defaultValue();
        }

        /** First part of every key's hash tag ({@code idworker.redis.key-prefix}); no braces. */
        public B keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return self();
        }

        /**
         * How long a refill lock lives when its owner dies holding it (the store's {@code lock-ttl}); longer than
         * a database reservation takes, or a refill that outlives its lock skips the numbers it reserved.
         */
        public B lockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
            return self();
        }

        /** Longest one call waits in all, for Redis and for a refill (the store's {@code max-wait}). */
        public B maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return self();
        }

        /**
         * @throws IdWorkerConfigurationException naming the property and its allowed range of the first value the
         *         store cannot run with
         */
        public final O build() {
            RedisKeyPrefix.check(keyPrefix);
            lockTtlProperty.check(lockTtl);
            maxWaitProperty.check(maxWait);
            return buildChecked();
        }

        /** Checks the store's own settings and creates its options; the shared ones are checked already. */
        protected abstract O buildChecked();

        /** This builder as the store's type: {@code return this}. */
        protected abstract B self();
    }
}

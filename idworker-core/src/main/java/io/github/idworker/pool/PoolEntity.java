package io.github.idworker.pool;

import io.github.idworker.IdWorkerConfigurationException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The settings of one ID pool, as one row of the pool table holds them. A built entity is always valid: the
 * builder refuses a non-positive limit, a threshold outside 1–99 %, and a pool that could not take a whole chunk
 * when it refills ({@code max-pool-size × (1 − threshold-percent / 100)} below {@code step}), naming the property
 * {@code idworker.pool.entities.<key>.<field>}.
 *
 * <p>Offsets: the database hands out offsets {@code start-offset, start-offset + 1, …}; {@code current-offset} is
 * the last one reserved (every offset up to it is spent, whether or not its ID reached a caller). An offset
 * becomes an ID through the deployment's {@link PoolEnvironment}.
 */
public final class PoolEntity {

    /** Entity keys: letters, digits, '_', '-' and '.', 1 to 64 of them. They name Redis keys and table rows. */
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public static final int DEFAULT_MAX_PER_REQUEST = 1000;
    public static final int DEFAULT_MAX_PER_SECOND = 5000;
    public static final int DEFAULT_THRESHOLD_PERCENT = 80;
    public static final int DEFAULT_STEP = 1000;
    public static final long DEFAULT_START_OFFSET = 1;
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(1);
    /** The default {@code max-pool-size} is this many seconds of {@code max-per-second}. */
    public static final int DEFAULT_POOL_SECONDS = 60;
    public static final int MAX_STEP = 1_000_000;
    public static final long MAX_POOL_SIZE = 100_000_000L;
    public static final int MAX_GAP = 1_000_000;

    private final String key;
    private final String name;
    private final IncreasingType type;
    private final long startOffset;
    private final int step;
    private final long currentOffset;
    private final int maxPerRequest;
    private final int maxPerSecond;
    private final int thresholdPercent;
    private final Duration checkInterval;
    private final long maxPoolSize;
    private final int maxGap;

    private PoolEntity(Builder b) {
        this.key = b.key;
        this.name = b.name == null || b.name.isBlank() ? b.key : b.name;
        this.type = b.type;
        this.startOffset = b.startOffset;
        this.step = b.step;
        this.currentOffset = b.currentOffset == null ? b.startOffset - 1 : b.currentOffset;
        this.maxPerRequest = b.maxPerRequest;
        this.maxPerSecond = b.maxPerSecond;
        this.thresholdPercent = b.thresholdPercent;
        this.checkInterval = b.checkInterval;
        this.maxPoolSize = b.maxPoolSize == null ? (long) DEFAULT_POOL_SECONDS * b.maxPerSecond : b.maxPoolSize;
        this.maxGap = b.maxGap;
    }

    /** The property of one field of entity {@code key}: {@code idworker.pool.entities.<key>.<field>}. */
    public static String property(String key, String field) {
        return "idworker.pool.entities." + key + "." + field;
    }

    /** @throws IdWorkerConfigurationException naming {@code property} unless {@code key} is a valid entity key */
    public static String checkKey(String key, String property) {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new IdWorkerConfigurationException(property, "an entity key is 1 to 64 letters, digits, '_', '-' "
                    + "or '.', was '" + key + "'");
        }
        return key;
    }

    public static Builder builder(String key) {
        return new Builder(key);
    }

    /** A builder holding this entity's settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder(key).name(name).type(type).startOffset(startOffset).step(step).currentOffset(currentOffset)
                .maxPerRequest(maxPerRequest).maxPerSecond(maxPerSecond).thresholdPercent(thresholdPercent)
                .checkInterval(checkInterval).maxPoolSize(maxPoolSize).maxGap(maxGap);
    }

    public String key() {
        return key;
    }

    public String name() {
        return name;
    }

    public IncreasingType type() {
        return type;
    }

    /** The first offset the database hands out. */
    public long startOffset() {
        return startOffset;
    }

    /** How many offsets one chunk holds: the unit of the database reservation and of a {@code TREND} shuffle. */
    public int step() {
        return step;
    }

    /** The last offset reserved when this entity was read (before any: {@code start-offset − 1}). */
    public long currentOffset() {
        return currentOffset;
    }

    public int maxPerRequest() {
        return maxPerRequest;
    }

    /** IDs per second across all nodes. */
    public int maxPerSecond() {
        return maxPerSecond;
    }

    /** A refill starts when the pool holds fewer than this percentage of {@link #maxPoolSize()}. */
    public int thresholdPercent() {
        return thresholdPercent;
    }

    public Duration checkInterval() {
        return checkInterval;
    }

    /** The most IDs the Redis list ever holds. */
    public long maxPoolSize() {
        return maxPoolSize;
    }

    /** {@code MONOTONIC} only: up to this many offsets skipped at random after each ID; 0 for none. */
    public int maxGap() {
        return maxGap;
    }

    /** The level below which the pool is refilled and a low-level alarm may fire. */
    public long thresholdLevel() {
        return maxPoolSize * thresholdPercent / 100;
    }

    /**
     * The settings a node acts on, without {@code current-offset}: two entities with equal settings refill and
     * limit alike.
     */
    public boolean sameSettings(PoolEntity o) {
        return key.equals(o.key) && name.equals(o.name) && type == o.type && startOffset == o.startOffset
                && step == o.step && maxPerRequest == o.maxPerRequest && maxPerSecond == o.maxPerSecond
                && thresholdPercent == o.thresholdPercent && checkInterval.equals(o.checkInterval)
                && maxPoolSize == o.maxPoolSize && maxGap == o.maxGap;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PoolEntity e && sameSettings(e) && currentOffset == e.currentOffset;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, type, step, maxPoolSize);
    }

    @Override
    public String toString() {
        return "PoolEntity[" + key + " '" + name + "', " + type + ", start " + startOffset + ", step " + step
                + ", current " + currentOffset + ", max-per-request " + maxPerRequest + ", max-per-second "
                + maxPerSecond + ", threshold " + thresholdPercent + "%, check " + checkInterval.toMillis()
                + " ms, max-pool-size " + maxPoolSize + (maxGap > 0 ? ", max-gap " + maxGap : "") + "]";
    }

    /** Builds a {@link PoolEntity}, with the defaults of the constants above. */
    public static final class Builder {
        private final String key;
        private @Nullable String name;
        private IncreasingType type = IncreasingType.MONOTONIC;
        private long startOffset = DEFAULT_START_OFFSET;
        private int step = DEFAULT_STEP;
        private @Nullable Long currentOffset;
        private int maxPerRequest = DEFAULT_MAX_PER_REQUEST;
        private int maxPerSecond = DEFAULT_MAX_PER_SECOND;
        private int thresholdPercent = DEFAULT_THRESHOLD_PERCENT;
        private Duration checkInterval = DEFAULT_CHECK_INTERVAL;
        private @Nullable Long maxPoolSize;
        private int maxGap;

        private Builder(String key) {
            this.key = key;
        }

        public Builder name(@Nullable String name) {
            this.name = name;
            return this;
        }

        public Builder type(IncreasingType type) {
            this.type = type;
            return this;
        }

        public Builder startOffset(long startOffset) {
            this.startOffset = startOffset;
            return this;
        }

        public Builder step(int step) {
            this.step = step;
            return this;
        }

        /** As read from the table; a new entity starts at {@code start-offset − 1}. */
        public Builder currentOffset(long currentOffset) {
            this.currentOffset = currentOffset;
            return this;
        }

        public Builder maxPerRequest(int maxPerRequest) {
            this.maxPerRequest = maxPerRequest;
            return this;
        }

        public Builder maxPerSecond(int maxPerSecond) {
            this.maxPerSecond = maxPerSecond;
            return this;
        }

        public Builder thresholdPercent(int thresholdPercent) {
            this.thresholdPercent = thresholdPercent;
            return this;
        }

        public Builder checkInterval(Duration checkInterval) {
            this.checkInterval = checkInterval;
            return this;
        }

        /** {@code null} for the default, {@value PoolEntity#DEFAULT_POOL_SECONDS} × {@code max-per-second}. */
        public Builder maxPoolSize(@Nullable Long maxPoolSize) {
            this.maxPoolSize = maxPoolSize;
            return this;
        }

        public Builder maxPoolSize(long maxPoolSize) {
            this.maxPoolSize = maxPoolSize;
            return this;
        }

        public Builder maxGap(int maxGap) {
            this.maxGap = maxGap;
            return this;
        }

        /**
         * @throws IdWorkerConfigurationException naming {@code idworker.pool.entities.<key>.<field>} of the first
         *         setting the pool cannot run with
         */
        public PoolEntity build() {
            checkKey(key, "idworker.pool.entities");
            if (name != null && name.length() > 128) {
                throw invalid("name", "must be at most 128 characters, was " + name.length());
            }
            if (type == null) {
                throw invalid("type", "must be MONOTONIC or TREND");
            }
            if (startOffset < 0) {
                throw invalid("start-offset", "must be at least 0, was " + startOffset);
            }
            if (step < 1 || step > MAX_STEP) {
                throw invalid("step", "must be from 1 to " + MAX_STEP + ", was " + step);
            }
            if (currentOffset != null && currentOffset < -1) {
                throw invalid("current-offset", "must be at least -1, was " + currentOffset);
            }
            if (maxPerSecond < 1) {
                throw invalid("max-per-second", "must be at least 1, was " + maxPerSecond);
            }
            if (maxPerRequest < 1 || maxPerRequest > maxPerSecond) {
                throw invalid("max-per-request", "must be from 1 to max-per-second (" + maxPerSecond
                        + "), since a larger request could never pass the rate limit, was " + maxPerRequest);
            }
            if (thresholdPercent < 1 || thresholdPercent > 99) {
                throw invalid("threshold-percent", "must be from 1 to 99, was " + thresholdPercent);
            }
            if (checkInterval == null || checkInterval.toMillis() < 10 || checkInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw invalid("check-interval", "must be from 10ms to 1h, was " + checkInterval);
            }
            long size = maxPoolSize == null ? (long) DEFAULT_POOL_SECONDS * maxPerSecond : maxPoolSize;
            if (size < 1 || size > MAX_POOL_SIZE) {
                throw invalid("max-pool-size", "must be from 1 to " + MAX_POOL_SIZE + ", was " + size
                        + (maxPoolSize == null ? " (the default, " + DEFAULT_POOL_SECONDS + " × max-per-second)" : ""));
            }
            if (maxPerRequest > size) {
                throw invalid("max-per-request", "must not exceed max-pool-size (" + size + "), was " + maxPerRequest);
            }
            long room = size - size * thresholdPercent / 100;
            if (room < step) {
                throw invalid("step", "must fit in the room a refill finds: max-pool-size × (1 − threshold-percent / 100)"
                        + " = " + size + " × (1 − " + thresholdPercent + "/100) = " + room + " is below step " + step
                        + "; lower step or threshold-percent, or raise max-pool-size");
            }
            if (maxGap < 0 || maxGap > MAX_GAP) {
                throw invalid("max-gap", "must be from 0 to " + MAX_GAP + ", was " + maxGap);
            }
            if (maxGap > 0 && type != IncreasingType.MONOTONIC) {
                throw invalid("max-gap", "applies to MONOTONIC pools only (TREND shuffles its chunks instead), was "
                        + maxGap + " for a " + type + " pool");
            }
            return new PoolEntity(this);
        }

        private IdWorkerConfigurationException invalid(String field, String message) {
            return new IdWorkerConfigurationException(property(key, field), message);
        }
    }
}

package io.github.idworker.segment.redis;

import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Strictly ordered sequences addressed by tag: one {@link RedisSegmentIdGenerator} per tag, created on first use
 * and kept for the life of this lookup. Numbers of a tag are unique and strictly increase in the order calls
 * reach Redis, across every node sharing the Redis and the segment table: when one call returns before another
 * begins, all of the first call's numbers are smaller. Each call takes one Redis round trip, shared with the calls
 * queued behind it when coalescing is on; the next range is installed in Redis in the background before the current
 * one runs out, so a call waits for the table only when nothing is installed (a new tag, data loss) or demand
 * outran that refill.
 *
 * <p>A type of its own rather than a second {@link SegmentIdGenerators}, so that both lookups can be injected by
 * type without qualifiers and nobody gets the in-process one when they asked for the ordered one.
 *
 * <p>Thread-safe. A tag the table does not know ({@link UnknownSegmentTagException}) is dropped from the lookup
 * again, so calls with arbitrary tags leave nothing behind.
 */
public class RedisSequenceGenerators implements AutoCloseable {

    private final RedisSegmentOptions options;
    private final SegmentIdGenerators generators;

    /**
     * @param executor runs the Lua scripts on Redis
     * @param allocator the durable source of ranges (the segment table)
     * @param options key prefix, step, batch limit, lock ttl, bounded wait, run-id check, coalescing and the
     *        threshold of the range ahead
     */
    public RedisSequenceGenerators(RedisScriptExecutor executor, SegmentAllocator allocator, RedisSegmentOptions options) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(allocator, "allocator");
        this.options = Objects.requireNonNull(options, "options");
        this.generators = new SegmentIdGenerators(tag -> new RedisSegmentIdGenerator(executor, allocator, tag, options));
    }

    /**
     * The generator of {@code bizTag}, created on first use.
     *
     * @throws IllegalArgumentException when the tag is blank, longer than 128 characters or holds '{' or '}'
     */
    public RedisSegmentIdGenerator forTag(String bizTag) {
        checkTag(bizTag);
        return (RedisSegmentIdGenerator) this.generators.forTag(bizTag);
    }

    /** The next number of {@code bizTag}. */
    public long nextId(String bizTag) {
        checkTag(bizTag);
        return this.generators.nextId(bizTag);
    }

    /** {@code count} consecutive numbers of {@code bizTag} from one Redis call, at most {@code max-batch}. */
    public long[] nextIds(String bizTag, int count) {
        checkTag(bizTag);
        return this.generators.nextIds(bizTag, count);
    }

    /** The generators created so far, by tag: a snapshot, for meters and operators; creates nothing. */
    public Map<String, RedisSegmentIdGenerator> generators() {
        Map<String, RedisSegmentIdGenerator> out = new TreeMap<>();
        this.generators.generators().forEach((tag, g) -> out.put(tag, (RedisSegmentIdGenerator) g));
        return out;
    }

    /** The tags that have a generator so far. */
    public Set<String> tags() {
        return this.generators.tags();
    }

    public RedisSegmentOptions options() {
        return this.options;
    }

    /** Forgets every generator; the ranges stay in Redis for the next process. */
    @Override
    public void close() {
        this.generators.close();
    }

    private static void checkTag(String bizTag) {
        if (bizTag == null || bizTag.isBlank() || bizTag.length() > 128 || bizTag.indexOf('{') >= 0
                || bizTag.indexOf('}') >= 0) {
            throw new IllegalArgumentException("a Redis sequence tag must be 1 to 128 characters without '{' or '}', "
                    + "was '" + bizTag + "'");
        }
    }

    @Override
    public String toString() {
        return "RedisSequenceGenerators[" + this.options + ", tags " + tags() + "]";
    }
}

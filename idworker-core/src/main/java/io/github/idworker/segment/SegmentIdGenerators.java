package io.github.idworker.segment;

import io.github.idworker.IdGenerator;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Segment generators addressed by tag, created on first use and kept for the life of this lookup: one generator
 * per tag, whatever the number of callers. Works for both kinds, for example
 * {@code new SegmentIdGenerators(tag -> new SegmentIdGenerator(allocator, tag, options))} or
 * {@code new SegmentIdGenerators(tag -> new RedisSegmentIdGenerator(executor, allocator, tag, redisOptions))}.
 *
 * <p>Thread-safe. {@link #close()} closes every generator that is {@link AutoCloseable}.
 */
public class SegmentIdGenerators implements AutoCloseable {

    private final Function<String, ? extends IdGenerator> factory;
    private final Map<String, IdGenerator> generators = new ConcurrentHashMap<>();

    /** @param factory creates the generator of a tag; called at most once per tag */
    public SegmentIdGenerators(Function<String, ? extends IdGenerator> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /**
     * The generator of {@code bizTag}, created on first use. Whether the tag exists in the store is found out by
     * the first call that needs a range ({@link UnknownSegmentTagException}).
     */
    public IdGenerator forTag(String bizTag) {
        if (bizTag == null || bizTag.isBlank()) {
            throw new IllegalArgumentException("segment tag must not be blank, was '" + bizTag + "'");
        }
        return generators.computeIfAbsent(bizTag, factory);
    }

    /**
     * {@code forTag(bizTag).nextId()}; a tag the store does not know is dropped from this lookup again, so calls
     * with arbitrary tags leave nothing behind. So is a {@link StoreBackedGenerator} whose call failed before it
     * ever loaded a range (a tag asked for while the store was down): otherwise every tag asked for during an
     * outage would stay, with its meters and a failed health entry nobody clears. The caller gets the failure
     * as it was; the next call of that tag makes a new generator.
     */
    public long nextId(String bizTag) {
        IdGenerator g = forTag(bizTag);
        try {
            return g.nextId();
        } catch (UnknownSegmentTagException e) {
            forget(bizTag, g);
            throw e;
        } catch (RuntimeException e) {
            dropIfNeverLoaded(bizTag, g);
            throw e;
        }
    }

    /** {@code forTag(bizTag).nextIds(count)}; a tag is dropped as by {@link #nextId(String)}. */
    public long[] nextIds(String bizTag, int count) {
        IdGenerator g = forTag(bizTag);
        try {
            return g.nextIds(count);
        } catch (UnknownSegmentTagException e) {
            forget(bizTag, g);
            throw e;
        } catch (RuntimeException e) {
            dropIfNeverLoaded(bizTag, g);
            throw e;
        }
    }

    private void dropIfNeverLoaded(String bizTag, IdGenerator g) {
        // not closed: a caller racing on the same generator finishes its call as it would have; an in-flight load
        // that lands later is unique all the same and is simply never used
        if (g instanceof StoreBackedGenerator s && !s.everLoaded()) {
            generators.remove(bizTag, g);
        }
    }

    private void forget(String bizTag, IdGenerator g) {
        if (generators.remove(bizTag, g) && g instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // nothing to release beyond the map entry
            }
        }
    }

    /** The generators created so far, by tag: a snapshot, for meters and operators; creates nothing. */
    public Map<String, IdGenerator> generators() {
        return Map.copyOf(generators);
    }

    /** The tags that have a generator so far. */
    public Set<String> tags() {
        return Set.copyOf(generators.keySet());
    }

    @Override
    public void close() {
        for (IdGenerator g : generators.values()) {
            if (g instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing is best effort; generators hold no resources that outlive the process
                }
            }
        }
        generators.clear();
    }
}

package io.github.idworker.pool.redis;

import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Turns a reservation's offsets into the IDs of the environment in the order they are handed out. Guarantees:
 * every ID comes from an offset of the reservation, at most once; the chunks ({@code step} offsets each) keep
 * their order, so no chunk holds an ID above one of the next; no arithmetic overflows, also for a reservation
 * that ends at {@link Long#MAX_VALUE}. Steps, chunk by chunk:
 * <ol>
 *   <li>{@link IncreasingType#MONOTONIC} with {@code max-gap} 0: every offset, in order.</li>
 *   <li>{@link IncreasingType#MONOTONIC} with {@code max-gap} {@code g}: the chunk's first offset, then after each
 *       ID leave out 0 to {@code g} offsets at random, never past the chunk's end (so the IDs do not reveal
 *       business volume, and the gaps never reach across chunks).</li>
 *   <li>{@link IncreasingType#TREND}: every offset, shuffled within its chunk (Fisher–Yates).</li>
 * </ol>
 * Thread-safe: each call draws its own random generator from a shared {@link SecureRandom}.
 */
final class HandOutOrder {

    private final PoolEnvironment environment;
    private final SecureRandom seeds = new SecureRandom();

    HandOutOrder(PoolEnvironment environment) {
        this.environment = environment;
    }

    /** The IDs of a reservation in hand-out order: chunk by chunk, gaps or shuffles as the entity says. */
    long[] idsOf(PoolReservation r) {
        PoolEntity e = r.entity();
        long size = r.size();
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("reservation of " + size + " offsets is too large");
        }
        SplittableRandom random = new SplittableRandom(seeds.nextLong());
        if (e.type() == IncreasingType.MONOTONIC && e.maxGap() > 0) {
            long[] out = new long[(int) size];
            int n = 0;
            long step = e.step();
            // every step is taken by comparing distances, never by adding past the end: the reservation may end
            // at Long.MAX_VALUE (a single environment's last offset), where off + gap would overflow
            for (long chunkFirst = r.firstOffset(); ; chunkFirst += step) {
                boolean lastChunk = r.lastOffset() - chunkFirst < step;
                long chunkLast = lastChunk ? r.lastOffset() : chunkFirst + step - 1;
                // the first offset of every chunk is used, so the gaps never reach across chunks
                long off = chunkFirst;
                while (true) {
                    out[n++] = environment.id(off);
                    long skip = 1 + random.nextInt(e.maxGap() + 1);
                    if (chunkLast - off < skip) {
                        break;
                    }
                    off += skip;
                }
                if (lastChunk) {
                    break;
                }
            }
            return Arrays.copyOf(out, n);
        }
        long[] out = new long[(int) size];
        for (int i = 0; i < out.length; i++) {
            out[i] = environment.id(r.firstOffset() + i);
        }
        if (e.type() == IncreasingType.TREND) {
            int step = e.step();
            for (int from = 0; from < out.length; from += step) {
                int to = Math.min(out.length, from + step);
                for (int i = to - 1; i > from; i--) {
                    int j = from + random.nextInt(i - from + 1);
                    long t = out[i];
                    out[i] = out[j];
                    out[j] = t;
                }
            }
        }
        return out;
    }
}

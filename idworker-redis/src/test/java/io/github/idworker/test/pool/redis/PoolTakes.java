package io.github.idworker.test.pool.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** Takes recorded by test callers, and the checks of the pools' guarantees over them. */
final class PoolTakes {

    /** One successful take: who, when it began and returned (nanoTime), what it got. */
    record Take(int node, long begin, long end, long[] ids) {
        long min() {
            return Arrays.stream(ids).min().orElseThrow();
        }

        long max() {
            return Arrays.stream(ids).max().orElseThrow();
        }
    }

    private PoolTakes() {
    }

    /** Every ID of every take, sorted. */
    static long[] allSorted(Collection<Take> takes) {
        long[] all = takes.stream().flatMapToLong(t -> Arrays.stream(t.ids())).toArray();
        Arrays.sort(all);
        return all;
    }

    /** No ID appears twice. */
    static void assertUnique(Collection<Take> takes) {
        long[] all = allSorted(takes);
        int repeats = 0;
        long example = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                repeats++;
                example = all[i];
            }
        }
        assertThat(repeats).as("IDs handed out twice of " + all.length + " (e.g. " + example + ")").isZero();
    }

    /**
     * Whenever take A returned before take B began, every key of A's IDs is at most (strict: below) every key of
     * B's IDs; {@code key} maps an ID to what must increase (the ID itself, or its chunk).
     */
    static void assertOrdered(Collection<Take> takes, LongUnaryOperator key, boolean strict) {
        List<Take> byBegin = new ArrayList<>(takes);
        byBegin.sort(Comparator.comparingLong(Take::begin));
        List<Take> byEnd = new ArrayList<>(takes);
        byEnd.sort(Comparator.comparingLong(Take::end));
        long maxBefore = Long.MIN_VALUE;
        Take holder = null;
        int j = 0;
        int violations = 0;
        String example = null;
        for (Take b : byBegin) {
            while (j < byEnd.size() && byEnd.get(j).end() < b.begin()) {
                Take a = byEnd.get(j++);
                long k = key.applyAsLong(a.max());
                if (k > maxBefore) {
                    maxBefore = k;
                    holder = a;
                }
            }
            long minB = key.applyAsLong(b.min());
            if (holder != null && (strict ? minB <= maxBefore : minB < maxBefore)) {
                violations++;
                if (example == null) {
                    example = "a take returning " + Arrays.toString(holder.ids()) + " ended before one returning "
                            + Arrays.toString(b.ids()) + " began";
                }
            }
        }
        if (violations > 0) {
            fail(violations + " takes got IDs out of order, e.g. " + example);
        }
    }

    /** Within each take, IDs strictly increase. */
    static void assertAscendingWithinTakes(Collection<Take> takes) {
        for (Take t : takes) {
            for (int i = 1; i < t.ids().length; i++) {
                if (t.ids()[i] <= t.ids()[i - 1]) {
                    fail("a take returned IDs out of order: " + Arrays.toString(t.ids()));
                }
            }
        }
    }
}

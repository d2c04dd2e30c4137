package io.github.idworker.test.segment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Calls recorded by concurrent clients of a strictly ordered generator, and the two properties they must show:
 * every number issued once, and first come, first served — when one call returned before another began, all of
 * the first call's numbers are smaller.
 */
public final class SequenceCalls {

    /** One successful call: when it began and returned ({@link System#nanoTime()}), and the numbers it got. */
    public record Call(int client, long startNanos, long endNanos, long first, long last) {
    }

    private SequenceCalls() {
    }

    /** Fails unless no number was issued twice across {@code calls}. */
    public static void assertUnique(Collection<Call> calls) {
        List<Call> byFirst = new ArrayList<>(calls);
        byFirst.sort(Comparator.comparingLong(Call::first));
        for (int i = 1; i < byFirst.size(); i++) {
            Call prev = byFirst.get(i - 1);
            Call c = byFirst.get(i);
            if (c.first() <= prev.last()) {
                throw new AssertionError("numbers issued twice: " + prev + " and " + c);
            }
        }
    }

    /**
     * Fails unless every call's numbers lie above the numbers of every call that returned before it began. Sorts
     * calls by end time and keeps the running maximum, so each call is checked against all earlier-returned calls
     * with one binary search.
     */
    public static void assertFirstComeFirstServed(Collection<Call> calls) {
        List<Call> byEnd = new ArrayList<>(calls);
        byEnd.sort(Comparator.comparingLong(Call::endNanos));
        int n = byEnd.size();
        long[] ends = new long[n];
        int[] argMax = new int[n];
        for (int i = 0; i < n; i++) {
            ends[i] = byEnd.get(i).endNanos();
            argMax[i] = i == 0 || byEnd.get(i).last() > byEnd.get(argMax[i - 1]).last() ? i : argMax[i - 1];
        }
        for (Call c : calls) {
            int before = firstAtOrAfter(ends, c.startNanos()); // calls [0, before) returned before c began
            if (before > 0) {
                Call highest = byEnd.get(argMax[before - 1]);
                if (highest.last() >= c.first()) {
                    throw new AssertionError("first come, first served violated: " + highest + " returned "
                            + (c.startNanos() - highest.endNanos()) + " ns before " + c + " began, yet got "
                            + highest.last() + " >= " + c.first());
                }
            }
        }
    }

    /** The highest number any call in {@code calls} got, or {@link Long#MIN_VALUE}. */
    public static long highest(Collection<Call> calls) {
        return calls.stream().mapToLong(Call::last).max().orElse(Long.MIN_VALUE);
    }

    /** How many numbers the calls got in all. */
    public static long numbers(Collection<Call> calls) {
        return calls.stream().mapToLong(c -> c.last() - c.first() + 1).sum();
    }

    private static int firstAtOrAfter(long[] sorted, long value) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < value) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}

package io.github.idworker.benchmarks;

import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.TickingMillisClock;

/**
 * The clocks a worker can read, compared side by side in one run through a JMH {@code @Param}
 * ({@code -p clock=SYSTEM,TICKING}). Each value runs in its own fork, so the JIT sees one clock only.
 */
public enum BenchmarkClock {

    /** {@link MillisClock#SYSTEM}: a {@link System#currentTimeMillis()} call for every identifier. */
    SYSTEM {
        @Override
        MillisClock clock() {
            return MillisClock.SYSTEM;
        }
    },

    /** {@link TickingMillisClock#shared()}: a volatile load that a daemon thread refreshes every 500 µs. */
    TICKING {
        @Override
        MillisClock clock() {
            return TickingMillisClock.shared();
        }
    };

    /** The clock; the ticking one starts its thread only when asked for. */
    abstract MillisClock clock();
}

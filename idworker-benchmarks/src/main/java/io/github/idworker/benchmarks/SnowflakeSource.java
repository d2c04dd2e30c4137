package io.github.idworker.benchmarks;

import cn.hutool.core.lang.Snowflake;
import io.github.idworker.IdGenerator;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;

import java.util.Date;

/**
 * The snowflake generators compared side by side in one run through a JMH {@code @Param source}: ours and two
 * peers, each behind the same {@link IdGenerator#nextId()} call, each value in its own fork so the JIT sees one
 * implementation. All of them read {@link System#currentTimeMillis()} per identifier and use the same epoch
 * ({@link SnowflakeLayout#DEFAULT_EPOCH}) and, where they can, the same widths.
 *
 * <p>What differs, beside the code: ours holds a real lease (worker id borrowed from an H2 centre, renewed in the
 * background, a timestamp fence checked per identifier); the peers are given a fixed machine id, as their users
 * do when no machine-id distributor is configured.
 */
public enum SnowflakeSource {

    /** Our leased {@link DBIdWorker} over an in-memory H2 centre ({@link LeasedWorkers}). */
    IDWORKER {
        @Override
        Running start(BenchmarkLayout layout) {
            DBIdWorker worker = LeasedWorkers.start(layout.layout());
            return new Running(worker, () -> LeasedWorkers.close(worker));
        }
    },

    /**
     * CosId's {@link MillisecondSnowflakeId} with the same timestamp, machine and sequence widths as ours and
     * machine id {@value #MACHINE_ID}; its other settings are its defaults (a synchronized {@code generate()}, the
     * sequence carried over into a new millisecond until it passes half its range).
     */
    COSID {
        @Override
        Running start(BenchmarkLayout layout) {
            MillisecondSnowflakeId cosId = new MillisecondSnowflakeId(SnowflakeLayout.DEFAULT_EPOCH.toEpochMilli(),
                    layout.timestampBits(), layout.workerBits(), layout.sequenceBits(), MACHINE_ID);
            return new Running(cosId::generate, () -> { });
        }
    },

    /**
     * Hutool's {@link Snowflake}, whose layout is fixed at 41 timestamp, 5 + 5 worker and data-centre, 12 sequence
     * bits: the same as our default. Worker id and data-centre id {@value #MACHINE_ID}; it reads
     * {@code System.currentTimeMillis()} (Hutool's cached clock is off by default and stays off). It cannot run
     * another layout, so it is refused for any but {@link BenchmarkLayout#DEFAULT}.
     */
    HUTOOL {
        @Override
        Running start(BenchmarkLayout layout) {
            if (layout != BenchmarkLayout.DEFAULT) {
                throw new IllegalArgumentException("Hutool's Snowflake has a fixed layout (41 timestamp, 10 worker, "
                        + "12 sequence bits); it cannot run " + layout);
            }
            Snowflake hutool = new Snowflake(Date.from(SnowflakeLayout.DEFAULT_EPOCH), MACHINE_ID, MACHINE_ID, false);
            return new Running(hutool::nextId, () -> { });
        }
    };

    /** Machine (worker) id given to the peers, which take it from configuration rather than a lease. */
    static final int MACHINE_ID = 1;

    /** Starts a generator with {@code layout}'s widths. */
    abstract Running start(BenchmarkLayout layout);

    /** A started generator and what stops it (returns the lease for ours). */
    record Running(IdGenerator ids, Runnable stop) {
    }
}

package io.github.idworker.benchmarks;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;

import java.time.Duration;
import java.util.UUID;

/**
 * Starts workers that hold a real lease: a {@link JdbcSequenceManager} over an in-memory H2 database, so the
 * worker borrows its worker id, renews it with its heartbeat and returns it on close exactly as in production;
 * only the network hop to the database is missing, and {@code nextId()} never touches the centre anyway.
 */
final class LeasedWorkers {

    /** One database per benchmark JVM; each worker uses a namespace of its own in it. */
    static final String URL = "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1";

    private LeasedWorkers() {
    }

    /**
     * Creates the lease table if needed, then borrows a worker id for a new namespace and starts the worker on the
     * system clock.
     */
    static DBIdWorker start(SnowflakeLayout layout) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(URL);
        JdbcSequenceManager manager = new JdbcSequenceManager(dataSource);
        manager.createSchemaIfMissing();
        WorkerOptions options = WorkerOptions.builder()
                .namespace("bench-" + UUID.randomUUID().toString().substring(0, 8))
                .layout(layout)
                // the default ttl + max-skew: a new namespace's first borrow waits it, not the default 30 s
                .lossGuard(Duration.ofSeconds(16))
                .clock(MillisClock.SYSTEM)
                .shutdownHook(false)
                .build();
        DBIdWorker worker = new DBIdWorker(manager, options);
        worker.start();
        return worker;
    }

    /**
     * Returns the lease. A measurement during which a caller waited at the high-water or the worker moved to
     * another worker id measured the centre, not the worker: say so next to the figures.
     */
    static void close(DBIdWorker worker) {
        if (worker == null) {
            return;
        }
        long trips = worker.fenceTripCount();
        long switches = worker.leaseSwitchCount();
        worker.close();
        if (trips > 0 || switches > 0) {
            System.out.println("WARNING: " + worker + " waited at its lease high-water " + trips
                    + " time(s) and switched worker id " + switches + " time(s) during this trial");
        }
    }
}

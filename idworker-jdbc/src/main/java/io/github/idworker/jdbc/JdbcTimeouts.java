package io.github.idworker.jdbc;

import io.github.idworker.IdWorkerConfigurationException;

import java.time.Duration;

/**
 * How long a JDBC centre waits for the database: every statement is cancelled by the database after
 * {@code statementTimeout} (a lock held by another session included), and a connection that receives nothing for
 * {@code networkTimeout} (a blackholed socket, a failover in progress) is abandoned by the driver. So every call
 * of the lease centre and of the segment allocator returns, or fails with
 * {@link io.github.idworker.CenterUnavailableException}, in bounded time.
 *
 * @param statementTimeout whole seconds (JDBC's unit), at least one
 * @param networkTimeout longer than {@code statementTimeout}, so the database can report the statement's own
 *        timeout before the socket gives up
 */
public record JdbcTimeouts(Duration statementTimeout, Duration networkTimeout) {

    /** Property of {@link #statementTimeout()} in the Spring Boot starter, named in validation errors. */
    public static final String STATEMENT_TIMEOUT_PROPERTY = "idworker.jdbc.statement-timeout";
    /** Property of {@link #networkTimeout()} in the Spring Boot starter, named in validation errors. */
    public static final String NETWORK_TIMEOUT_PROPERTY = "idworker.jdbc.network-timeout";
    /** Two seconds: below the default heartbeat (a third of the 15 s lease), so a hung renewal is retried in time. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(2);
    /** Five seconds. */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofSeconds(5);

    /**
     * @throws IdWorkerConfigurationException naming the property when a timeout is missing, shorter than a
     *         second, not whole seconds (statement timeout), or the network timeout does not exceed the
     *         statement timeout
     */
    public JdbcTimeouts {
        if (statementTimeout == null || statementTimeout.compareTo(Duration.ofSeconds(1)) < 0
                || statementTimeout.toMillis() % 1000 != 0 || statementTimeout.getSeconds() > Integer.MAX_VALUE) {
            throw new IdWorkerConfigurationException(STATEMENT_TIMEOUT_PROPERTY, "must be whole seconds (JDBC "
                    + "counts statement timeouts in seconds), at least 1s, was " + statementTimeout);
        }
        if (networkTimeout == null || networkTimeout.compareTo(statementTimeout) <= 0
                || networkTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IdWorkerConfigurationException(NETWORK_TIMEOUT_PROPERTY, "must be longer than "
                    + STATEMENT_TIMEOUT_PROPERTY + " (" + statementTimeout + "), so the database can report a "
                    + "statement's timeout before the connection is given up, was " + networkTimeout);
        }
    }

    /** The defaults: {@value #STATEMENT_TIMEOUT_PROPERTY} 2s, {@value #NETWORK_TIMEOUT_PROPERTY} 5s. */
    public static JdbcTimeouts defaults() {
        return new JdbcTimeouts(DEFAULT_STATEMENT_TIMEOUT, DEFAULT_NETWORK_TIMEOUT);
    }

    /** The statement timeout as {@link java.sql.Statement#setQueryTimeout(int)} takes it. */
    public int statementSeconds() {
        return (int) statementTimeout.getSeconds();
    }

    /** The network timeout as {@link java.sql.Connection#setNetworkTimeout} takes it. */
    public int networkMillis() {
        return (int) networkTimeout.toMillis();
    }
}

package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterLoginRefusedException;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.StoreLocations;
import io.github.idworker.WorkerIdExhaustedException;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Turns an {@link IdWorkerException} that stopped the application from starting into one description (the
 * exception's message, which names the property or the centre's host and port, with credentials removed by
 * {@link StoreLocations#redact(String)}) and one action. When the message names a duration that was written as a
 * bare number, the description adds how Spring Boot read it: {@code idworker.lease.ttl=15 was read as 15 ms (a number
 * without a unit is milliseconds)}.
 */
public class IdWorkerFailureAnalyzer extends AbstractFailureAnalyzer<IdWorkerException> {

    private static final String INITIALIZE_SCHEMA = "idworker.jdbc.initialize-schema";
    private static final String SEGMENT_INITIALIZE_SCHEMA = "idworker.segment.initialize-schema";
    private static final String SERIAL_INITIALIZE_SCHEMA = "idworker.serial.initialize-schema";
    private static final String POOL_INITIALIZE_SCHEMA = "idworker.pool.initialize-schema";

    /** Where the properties of the failed startup are read; {@code null} in tests that pass none. */
    private final @Nullable Environment environment;

    /** Spring Boot passes the failed context's environment, to tell how its durations were written. */
    public IdWorkerFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    /** Without the environment: every analysis but the duration hints. */
    IdWorkerFailureAnalyzer() {
        this.environment = null;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, IdWorkerException cause) {
        return new FailureAnalysis(description(rootFailure, cause), action(cause), cause);
    }

    /** Redacted once more here: a message of any source may quote a data source URL or a Redis URI. */
    private String description(Throwable rootFailure, IdWorkerException cause) {
        String bean = beanName(rootFailure);
        String message = redacted(cause);
        return "idworker could not start" + ((bean != null) ? " bean '" + bean + "'" : "") + ":\n\n    " + message
                + unitHints(message);
    }

    /**
     * The message with credentials removed, but a configuration error's leading {@code property: } left out of the
     * redaction: a property named for a secret ({@code idworker.client.secret: must be ...}) reads as an assignment
     * of one, and its message's first word would be masked.
     */
    private static String redacted(IdWorkerException cause) {
        String message = String.valueOf(cause.getMessage());
        if (cause instanceof IdWorkerConfigurationException config) {
            String prefix = config.getProperty() + ": ";
            if (message.startsWith(prefix)) {
                return prefix + StoreLocations.redact(message.substring(prefix.length()));
            }
        }
        return StoreLocations.redact(message);
    }

    /** How Spring Boot read each duration the message names that was written without a unit. */
    private String unitHints(String message) {
        if (environment == null || !message.contains(IdWorkerProperties.PREFIX + ".")) {
            return "";
        }
        String hints;
        try {
            hints = IdworkerPropertyNames.of(environment).unitHints(message);
        } catch (RuntimeException e) {
            // a hint is a courtesy: the analysis stands without it
            return "";
        }
        return hints.isEmpty() ? "" : "\n\n    " + hints.replace("\n", "\n    ");
    }

    /** The innermost bean whose creation failed, usually the worker, its sequence manager or a segment bean. */
    private @Nullable String beanName(Throwable failure) {
        String name = null;
        for (Throwable t = failure; t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof BeanCreationException bce && bce.getBeanName() != null) {
                name = bce.getBeanName();
            }
        }
        return name;
    }

    private String action(IdWorkerException cause) {
        if (cause instanceof ExplainedConfigurationException explained) {
            return explained.action();
        }
        if (cause instanceof IdWorkerConfigurationException config) {
            String message = String.valueOf(config.getMessage());
            if (INITIALIZE_SCHEMA.equals(config.getProperty())) {
                return "Create idworker's lease tables (the slot table and its \"_ns\" namespace table) with the DDL "
                        + "for your database (see docs/tables.md), or set "
                        + INITIALIZE_SCHEMA + "=always to let idworker create it at startup.";
            }
            if (SEGMENT_INITIALIZE_SCHEMA.equals(config.getProperty()) && message.contains(" lacks column ")) {
                return "Add the column to idworker's segment table with the statements quoted above (see CHANGELOG.md, "
                        + "\"Upgrading a segment table\"), or set " + SEGMENT_INITIALIZE_SCHEMA
                        + "=always to let idworker add it at startup.";
            }
            if (SEGMENT_INITIALIZE_SCHEMA.equals(config.getProperty())) {
                return "Create idworker's segment table with the DDL for your database (see docs/segment.md), or set "
                        + SEGMENT_INITIALIZE_SCHEMA + "=always to let idworker create it at startup.";
            }
            if (SERIAL_INITIALIZE_SCHEMA.equals(config.getProperty()) && message.contains(" lacks column ")) {
                return "Add the column to idworker's serial period table with the statements quoted above (see "
                        + "CHANGELOG.md, \"Upgrading the serial and pool tables\"), or set " + SERIAL_INITIALIZE_SCHEMA
                        + "=always to let idworker add it at startup.";
            }
            if (POOL_INITIALIZE_SCHEMA.equals(config.getProperty()) && message.contains(" lacks column ")) {
                return "Add the column to idworker's pool table with the statements quoted above (see CHANGELOG.md, "
                        + "\"Upgrading the serial and pool tables\"), or set " + POOL_INITIALIZE_SCHEMA
                        + "=always to let idworker add it at startup.";
            }
            if (SERIAL_INITIALIZE_SCHEMA.equals(config.getProperty())) {
                return "Create idworker's serial tables (the rule table and its \"_period\" table) with the DDL for "
                        + "your database (see docs/serial-numbers.md), or set " + SERIAL_INITIALIZE_SCHEMA
                        + "=always to let idworker create them at startup.";
            }
            if (POOL_INITIALIZE_SCHEMA.equals(config.getProperty())) {
                return "Create idworker's pool table with the DDL for your database (see docs/id-pools.md), or set "
                        + POOL_INITIALIZE_SCHEMA + "=always to let idworker create it at startup.";
            }
            if (WorkerOptionsFactory.APPLICATION_NAME.equals(config.getProperty())) {
                return "Set idworker.namespace to a valid namespace (it then no longer defaults to "
                        + WorkerOptionsFactory.APPLICATION_NAME + "), or change " + WorkerOptionsFactory.APPLICATION_NAME
                        + " to 1 to 64 letters, digits, '.', '_', ':' or '-'.";
            }
            if (config.getProperty().startsWith("@EnableIdWorker")) {
                return "Add the dependency named above, or choose another CenterMode in @EnableIdWorker.";
            }
            if (config.getProperty().startsWith("@EnableSegmentIdGenerators")) {
                return "Add the dependency named above, or drop redisSequences = true from @EnableSegmentIdGenerators.";
            }
            if (config.getProperty().startsWith("@EnableSerialNumbers")) {
                return "Add the dependency named above, or use @EnableSerialNumbers(mode = SerialMode.LOCAL) for "
                        + "serial numbers kept in the database only.";
            }
            if (config.getProperty().equals("@EnableIdPools")) {
                return "Add the dependency named above: ID pools live in Redis.";
            }
            return "Update your application's configuration: correct '" + config.getProperty()
                    + "' as described above (application.properties/yml, environment variables or command line).";
        }
        if (cause instanceof CenterLoginRefusedException) {
            return "The database answered and refused the login: correct spring.datasource.username and "
                    + "spring.datasource.password (or the password in the URL), or let that user connect from this "
                    + "host to this database.";
        }
        if (cause instanceof CenterUnavailableException) {
            return "Make sure the centre named above is running and reachable from this host, and that "
                    + "spring.datasource.* (database), spring.data.redis.* (Redis) or idworker.zookeeper.* (ZooKeeper, "
                    + "unless the application's own CuratorFramework is used) point at it.";
        }
        if (cause instanceof WorkerIdExhaustedException) {
            return "Stop idle workers of this namespace, give this application its own idworker.namespace, "
                    + "or raise idworker.snowflake.worker-bits (and lower another width to stay within 63 bits).";
        }
        if (cause instanceof ClockAheadOfCentreException) {
            return "Synchronise this host's clock with the centre's (NTP, chrony; for ZooKeeper, every server's too), "
                    + "then restart. Raising " + ClockAheadOfCentreException.MAX_SKEW_PROPERTY + " for every worker of "
                    + "the namespace also admits the clock, at the price of a longer wait after the centre loses its data.";
        }
        if (cause instanceof LeaseLostException || cause instanceof ClockMovedBackwardsException) {
            return "Check this host's clock (NTP) and its connection to the centre, then restart.";
        }
        return "Correct the problem described above and restart the application.";
    }
}

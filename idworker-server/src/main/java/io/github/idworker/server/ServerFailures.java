package io.github.idworker.server;

import io.github.idworker.StoreLocations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The one way a failure on the server's side (a 5xx, a store that failed) reaches a caller: as an {@code errorId}
 * only. The cause — whose message names hosts, ports, Redis keys, tables and JDBC URLs — goes to this class's log,
 * at WARN, credentials redacted ({@link StoreLocations#redact}), under that id; the problem document carries a
 * generic detail and the id, so an operator given the id finds the line.
 */
final class ServerFailures {

    private static final Logger log = LoggerFactory.getLogger(ServerFailures.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private ServerFailures() {
    }

    /**
     * Logs {@code failure} of the request for {@code path} under a new error id, and returns the id: at WARN for a
     * failure idworker foresaw (a store down, a refill timed out), at ERROR with the stack trace at DEBUG for one
     * it did not (a bug: the stack trace's messages are not redacted, so it stays out of the default log).
     */
    static String record(String path, Throwable failure, boolean foreseen) {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        String errorId = HexFormat.of().formatHex(bytes);
        if (foreseen) {
            log.warn("errorId {}: request {} failed: {}", errorId, RequestExcerpt.quote(path), describe(failure));
        } else {
            log.error("errorId {}: request {} failed inside the server: {}", errorId, RequestExcerpt.quote(path),
                    describe(failure));
            log.debug("errorId {}: stack trace", errorId, failure);
        }
        return errorId;
    }

    /** The detail of a problem document about a failure logged under {@code errorId}. */
    static String detail(String what, String errorId) {
        return what + "; retry later (the server's log has the cause under errorId " + errorId + ")";
    }

    /** The failure and its causes, each as its class and redacted message; no stack trace (it may hold none). */
    static String describe(Throwable failure) {
        if (failure == null) {
            return "(no exception)";
        }
        StringBuilder text = new StringBuilder();
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 8; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (depth > 0) {
                text.append("; caused by ");
            }
            text.append(t.getClass().getName()).append(": ")
                    .append(StoreLocations.redact(String.valueOf(t.getMessage())));
        }
        return text.toString();
    }
}

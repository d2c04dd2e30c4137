package io.github.idworker.spring.boot.actuate;

import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one way a generator's failure reaches the health details and the {@code idworker} endpoint: as the
 * exception's class name, when it happened and an {@code errorId} — never its message, which names hosts, ports,
 * Redis keys, tables and JDBC URLs, and those endpoints may be public. The message, credentials redacted
 * ({@link StoreLocations#redact}), goes to this class's log at WARN under that id, once per failure (a failure
 * read again by the next probe keeps its id and is not logged again), so an operator given the id finds the cause.
 *
 * <p>Steps: take the leading class name of the text ({@code Throwable.toString()}: {@code class: message}), else
 * {@code failure}; look up the id of this (source, text, time) or draw a new one (64 random bits) and log it;
 * return {@code <class> [at <time>] (errorId <id>)}. Remembers the last {@value #REMEMBERED} failures.
 */
public final class PublishedFailures {

    private static final Logger log = LoggerFactory.getLogger(PublishedFailures.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int REMEMBERED = 512;
    /** A fully qualified class name at the start, ended by {@code :} or the end of the text. */
    private static final Pattern CLASS_NAME =
            Pattern.compile("^((?:[A-Za-z_$][\\w$]*\\.)+[A-Za-z_$][\\w$]*)(?::|$)");

    private static final Map<String, String> IDS = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    private PublishedFailures() {
    }

    /**
     * The published form of {@code failure} (a failure's text, e.g. {@code Throwable.toString()}) of
     * {@code source} (e.g. {@code segment order}), or {@code null} when it is {@code null}.
     *
     * @param at when it happened, or {@code null} when unknown
     */
    public static @Nullable String publish(String source, @Nullable String failure, @Nullable Instant at) {
        if (failure == null) {
            return null;
        }
        String redacted = StoreLocations.redact(failure);
        Matcher m = CLASS_NAME.matcher(redacted);
        String kind = m.find() ? m.group(1) : "failure";
        String key = source + '\u0000' + at + '\u0000' + redacted;
        String errorId;
        boolean fresh = false;
        synchronized (IDS) {
            errorId = IDS.get(key);
            if (errorId == null) {
                byte[] bytes = new byte[8];
                RANDOM.nextBytes(bytes);
                errorId = HexFormat.of().formatHex(bytes);
                IDS.put(key, errorId);
                fresh = true;
            }
        }
        if (fresh) {
            // one line, so the errorId finds all of it (a driver's message may span several)
            log.warn("errorId {}: {} failed{}: {}", errorId, source, at == null ? "" : " at " + at,
                    redacted.replaceAll("\\s*\\R\\s*", " "));
        }
        return kind + (at == null ? "" : " at " + at) + " (errorId " + errorId + ")";
    }

    /**
     * The published form of a worker's last renewal failure, written {@code <instant> <failure>} by the worker, or
     * {@code null}.
     */
    public static @Nullable String publishRenewal(String source, @Nullable String lastRenewalFailure) {
        if (lastRenewalFailure == null) {
            return null;
        }
        int space = lastRenewalFailure.indexOf(' ');
        if (space > 0) {
            try {
                Instant at = Instant.parse(lastRenewalFailure.substring(0, space));
                return publish(source, lastRenewalFailure.substring(space + 1), at);
            } catch (DateTimeParseException e) {
                // not the worker's format: published whole, without a time
            }
        }
        return publish(source, lastRenewalFailure, null);
    }
}

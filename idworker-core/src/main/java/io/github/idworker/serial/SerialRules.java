package io.github.idworker.serial;

import io.github.idworker.CenterUnavailableException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The rules a node serves, read from a {@link SerialStore} (the source of truth) and kept for
 * {@code refresh}: a rule an operator adds to the table is found on its first use, one they tune is picked up
 * within {@code refresh}. While the store cannot be reached a known rule keeps serving as last read.
 *
 * <p>Thread-safe. At most one caller per rule re-reads it at a time; the others use the rule as last read.
 */
public final class SerialRules {

    /** Default time a rule is used before it is read again. */
    public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(SerialRules.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final SerialStore store;
    private final long refreshNanos;
    private final LongSupplier nanoClock;
    private final String where;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    /**
     * @param store the rule table, named in errors by its {@link SerialStore#description()}
     * @param refresh how long a rule is used before it is read again, at least 1 ms
     */
    public SerialRules(SerialStore store, Duration refresh) {
        this(store, refresh, store.description());
    }

    /**
     * @param store the rule table
     * @param refresh how long a rule is used before it is read again, at least 1 ms
     * @param where the store as error messages name it, e.g. {@code table idworker_serial_rule at jdbc:…}
     */
    public SerialRules(SerialStore store, Duration refresh, String where) {
        this(store, refresh, where, System::nanoTime);
    }

    SerialRules(SerialStore store, Duration refresh, String where, LongSupplier nanoClock) {
        this.store = Objects.requireNonNull(store, "store");
        if (refresh == null || refresh.toMillis() < 1) {
            throw new IllegalArgumentException("refresh must be at least 1 ms, was " + refresh);
        }
        this.refreshNanos = refresh.toNanos();
        this.where = Objects.requireNonNull(where, "where");
        this.nanoClock = nanoClock;
    }

    private static final class Cached {
        final SerialRule rule;
        final long readNanos;
        final AtomicBoolean reading = new AtomicBoolean();

        Cached(SerialRule rule, long readNanos) {
            this.rule = rule;
            this.readNanos = readNanos;
        }
    }

    /**
     * The rule {@code name}, read from the store on first use and again after {@code refresh}.
     *
     * @throws UnknownSerialRuleException when the store holds no such rule (or the name cannot be one)
     * @throws CenterUnavailableException when the rule was never read and the store cannot be reached
     */
    public SerialRule get(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new UnknownSerialRuleException(String.valueOf(name), where);
        }
        Cached c = cache.get(name);
        long now = nanoClock.getAsLong();
        if (c == null) {
            return read(name, now);
        }
        if (now - c.readNanos >= refreshNanos && c.reading.compareAndSet(false, true)) {
            try {
                return read(name, now);
            } catch (CenterUnavailableException e) {
                log.warn("Could not re-read serial rule '{}'; serving it as last read: {}", name, e.getMessage());
                cache.put(name, new Cached(c.rule, now));
                return c.rule;
            } finally {
                c.reading.set(false);
            }
        }
        return c.rule;
    }

    private SerialRule read(String name, long now) {
        SerialRule rule = store.find(name).orElse(null);
        if (rule == null) {
            cache.remove(name);
            throw new UnknownSerialRuleException(name, where);
        }
        cache.put(name, new Cached(rule, now));
        return rule;
    }

    /** Registers {@code rule} in the store (the stored one wins) and serves it from now on. */
    public SerialRule register(SerialRule rule) {
        SerialRule held = store.register(rule);
        cache.put(held.name(), new Cached(held, nanoClock.getAsLong()));
        return held;
    }

    /** The names of the rules read so far. */
    public java.util.Set<String> names() {
        return java.util.Set.copyOf(cache.keySet());
    }
}

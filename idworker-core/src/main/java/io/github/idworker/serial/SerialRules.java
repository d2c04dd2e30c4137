package io.github.idworker.serial;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The rules a node serves, read from a {@link SerialStore} (the source of truth) and kept for
 * {@code refresh}: a rule an operator adds to the table is found on its first use, one they tune is picked up
 * within {@code refresh}. While the store cannot be reached a known rule keeps serving as last read.
 *
 * <p>Thread-safe. Re-reads run on a background thread, at most one per rule at a time; callers never wait for
 * them. A re-read that finds the rule's shape changed, or its row invalid, stops serving the rule (calls get an
 * {@link IdWorkerConfigurationException}) until the row is put right: a changed shape could
 * print a string of the past again.
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
    private final Executor refresher;

    /** One daemon thread re-reads the rules of every lookup in this JVM; it ends when idle. */
    private static final Executor REFRESHER = refresherPool();

    private static Executor refresherPool() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "idworker-serial-rules");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

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
        this(store, refresh, where, nanoClock, REFRESHER);
    }

    /**
     * @param refresher runs the background re-reads (a test may pass {@code Runnable::run})
     */
    public SerialRules(SerialStore store, Duration refresh, String where, Executor refresher) {
        this(store, refresh, where, System::nanoTime, refresher);
    }

    SerialRules(SerialStore store, Duration refresh, String where, LongSupplier nanoClock, Executor refresher) {
        this.store = Objects.requireNonNull(store, "store");
        if (refresh == null || refresh.toMillis() < 1) {
            throw new IllegalArgumentException("refresh must be at least 1 ms, was " + refresh);
        }
        this.refreshNanos = refresh.toNanos();
        this.where = Objects.requireNonNull(where, "where");
        this.nanoClock = nanoClock;
        this.refresher = Objects.requireNonNull(refresher, "refresher");
    }

    private static final class Cached {
        final SerialRule rule;
        final long readNanos;
        /** Why the rule is not served any more: its row was edited into another shape or became invalid. */
        final @Nullable IdWorkerConfigurationException refused;
        final AtomicBoolean reading = new AtomicBoolean();

        Cached(SerialRule rule, long readNanos, @Nullable IdWorkerConfigurationException refused) {
            this.rule = rule;
            this.readNanos = readNanos;
            this.refused = refused;
        }
    }

    /**
     * The rule {@code name}, read from the store on first use and again, in the background, after
     * {@code refresh}: only a rule's first use waits for the store.
     *
     * @throws UnknownSerialRuleException when the store holds no such rule (or the name cannot be one)
     * @throws CenterUnavailableException when the rule was never read and the store cannot be reached
     * @throws IdWorkerConfigurationException when the rule's row became invalid or its shape
     *         was edited; the rule is not served until the row is put right
     */
    public SerialRule get(String name) {
        Cached c = name == null ? null : cache.get(name);
        if (c == null) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new UnknownSerialRuleException(String.valueOf(name), where);
            }
            return read(name);
        }
        if (nanoClock.getAsLong() - c.readNanos >= refreshNanos && c.reading.compareAndSet(false, true)) {
            try {
                refresher.execute(() -> reread(name, c));
            } catch (RejectedExecutionException e) {
                c.reading.set(false);
            }
        }
        if (c.refused != null) {
            throw c.refused;
        }
        return c.rule;
    }

    private SerialRule read(String name) {
        long now = nanoClock.getAsLong();
        SerialRule rule = store.find(name).orElse(null);
        if (rule == null) {
            throw new UnknownSerialRuleException(name, where);
        }
        cache.put(name, new Cached(rule, now, null));
        return rule;
    }

    /** Reads a known rule again; a store that cannot be reached leaves the rule as last read. */
    private void reread(String name, Cached c) {
        long now = nanoClock.getAsLong();
        try {
            SerialRule rule = store.find(name).orElse(null);
            if (rule == null) {
                cache.remove(name, c);
                log.warn("Serial rule '{}' is no longer in {}; it is not served any more", name, where);
            } else if (!rule.shapeDifferences(c.rule).isEmpty()) {
                refuse(name, c, new IdWorkerConfigurationException(
                        SerialRule.property(name, rule.shapeDifferences(c.rule).get(0)), "changed in " + where
                        + " while this node served the rule: " + c.rule.shapeText() + " became " + rule.shapeText()
                        + ". A rule's shape never changes, because strings handed out before could be printed "
                        + "again; the rule is not served until its row is put back."), now);
            } else {
                cache.replace(name, c, new Cached(rule, now, null));
            }
        } catch (CenterUnavailableException e) {
            log.warn("Could not re-read serial rule '{}'; serving it as last read: {}", name, e.getMessage());
            cache.replace(name, c, new Cached(c.rule, now, null));
        } catch (IdWorkerConfigurationException e) {
            refuse(name, c, e, now);
        } catch (RuntimeException e) {
            log.warn("Could not re-read serial rule '{}'; serving it as last read: {}", name, e.toString());
            cache.replace(name, c, new Cached(c.rule, now, null));
        } finally {
            c.reading.set(false);
        }
    }

    private void refuse(String name, Cached c, IdWorkerConfigurationException e, long now) {
        log.error("Serial rule '{}' is refused: {}", name, e.getMessage());
        cache.replace(name, c, new Cached(c.rule, now, e));
    }

    /** Registers {@code rule} in the store (the stored one wins) and serves it from now on. */
    public SerialRule register(SerialRule rule) {
        SerialRule held = store.register(rule);
        cache.put(held.name(), new Cached(held, nanoClock.getAsLong(), null));
        return held;
    }

    /**
     * Why rule {@code name} is refused (its row was edited into another shape or became invalid), redacted, or
     * empty when it is served or unknown; reads memory only, for health and operators.
     */
    public Optional<String> refusal(String name) {
        Cached c = name == null ? null : cache.get(name);
        return c == null || c.refused == null ? Optional.empty()
                : Optional.of(io.github.idworker.StoreLocations.redact(String.valueOf(c.refused.getMessage())));
    }

    /**
     * Rule {@code name} as last read, refused or not, or empty when it was never read; reads memory only and starts
     * no re-read, for operators' figures such as the rule's {@code max}.
     */
    public Optional<SerialRule> cached(String name) {
        Cached c = name == null ? null : cache.get(name);
        return c == null ? Optional.empty() : Optional.of(c.rule);
    }

    /** The names of the rules read so far. */
    public Set<String> names() {
        return Set.copyOf(cache.keySet());
    }
}

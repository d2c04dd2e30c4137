package io.github.idworker.spring.boot.actuate;

import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.PoolSnapshot;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialRuleStatus;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.WorkerStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters over the counters every generator keeps in memory: function counters, gauges and function
 * timers that read those counters when the registry publishes, so the hot paths never touch Micrometer. Names
 * and tags are listed in docs/operations.md (section Meters); every meter carries the tag naming its generator
 * ({@code namespace}, {@code tag}, {@code rule} or {@code entity}), and {@value #ISSUED} carries {@code mode}
 * and {@code name} so one meter covers every mode with one set of tag keys, as Prometheus requires.
 *
 * <p>Segment tags and sequences appear on first use, pools with the table's scan, so {@link #refresh()} runs
 * every {@link #REFRESH_INTERVAL} (and once at start): it registers the meters of generators that appeared and
 * removes those of generators that went away. It reads memory only.
 *
 * <p>Tags come from callers, so at most {@code maxTags} generators of each mode (segment tags, sequences, serial
 * rules, pools; snowflake workers are few and not counted) get meters; further ones get none, and one WARN line
 * per mode names {@code idworker.metrics.max-tags}. A generator that goes away frees its place. Each
 * serial-rule and pool meter reads its one rule or pool ({@link SerialNumbers#ruleStatus(String)},
 * {@link IdPools#snapshot(String)}), so a publish costs one lookup per meter, not one per rule or pool.
 */
public class IdWorkerMeters implements AutoCloseable {

    /** IDs issued, every mode. */
    public static final String ISSUED = "idworker.ids.issued";
    /** State of a named generator of {@code idworker.generators}, tagged {@code generator} and {@code namespace}. */
    public static final String GENERATOR_STATE = "idworker.generator.state";
    /** How often generators that appear and disappear are looked for. */
    public static final Duration REFRESH_INTERVAL = Duration.ofSeconds(10);
    /** Caps the generators of one mode that get meters. */
    public static final String MAX_TAGS_PROPERTY = "idworker.metrics.max-tags";
    /** The default of {@value #MAX_TAGS_PROPERTY}. */
    public static final int DEFAULT_MAX_TAGS = 100;

    private static final Logger log = LoggerFactory.getLogger(IdWorkerMeters.class);

    private final IdWorkerSources sources;
    private final MeterRegistry registry;
    /**
     * Meters by the generator (for serial rules and pools, the reader) they read. Micrometer holds the objects of
     * function meters weakly; this map holds them strongly until their meters are removed.
     */
    private final Map<Object, List<Meter>> registered = new HashMap<>();
    /** The mode of each key of {@link #registered}, for the cap. */
    private final Map<Object, String> modes = new HashMap<>();
    /** Modes whose cap was reached and said so: one warning per mode for the life of these meters. */
    private final Set<String> warned = new HashSet<>();
    private final int maxTags;
    private @Nullable ScheduledExecutorService refresher;

    /**
     * @param sources the generators of the context
     * @param registry where the meters live
     */
    public IdWorkerMeters(IdWorkerSources sources, MeterRegistry registry) {
        this(sources, registry, DEFAULT_MAX_TAGS);
    }

    /**
     * @param sources the generators of the context
     * @param registry where the meters live
     * @param maxTags most generators of one mode that get meters, at least 1
     */
    public IdWorkerMeters(IdWorkerSources sources, MeterRegistry registry, int maxTags) {
        if (maxTags < 1) {
            throw new IllegalArgumentException(MAX_TAGS_PROPERTY + " must be greater than 0, was " + maxTags);
        }
        this.sources = sources;
        this.registry = registry;
        this.maxTags = maxTags;
    }

    /** Registers the meters of the generators present now and refreshes them every {@link #REFRESH_INTERVAL}. */
    public synchronized void start() {
        refresh();
        if (refresher == null) {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "idworker-meters");
                t.setDaemon(true);
                return t;
            });
            long every = REFRESH_INTERVAL.toMillis();
            refresher.scheduleWithFixedDelay(this::refreshQuietly, every, every, TimeUnit.MILLISECONDS);
        }
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // a context closing under the refresher; the next run (or close) settles it
        }
    }

    /** Registers the meters of generators that appeared and removes those of generators that went away. */
    public synchronized void refresh() {
        Map<Object, Runnable> present = new LinkedHashMap<>();
        Map<Object, String> modeOf = new HashMap<>();
        sources.workers().values().forEach(w -> present.put(w, () -> bindWorker(w)));
        sources.generators().forEach((name, w) -> {
            GeneratorReader r = new GeneratorReader(name, w);
            present.put(r, () -> bindGenerator(r));
        });
        sources.segments().values().forEach(g -> {
            present.put(g, () -> bindSegment(g));
            modeOf.put(g, "segment");
        });
        sources.sequences().values().forEach(g -> {
            present.put(g, () -> bindSequence(g));
            modeOf.put(g, "sequence");
        });
        // the readers are the keys, so the map keeps them alive: a function timer holds its object weakly
        sources.serials().values().forEach(serials -> serials.ruleStatuses().forEach(s -> {
            RuleReader r = new RuleReader(serials, s.rule());
            present.put(r, () -> bindSerialRule(r));
            modeOf.put(r, "serial");
        }));
        sources.pools().values().forEach(pools -> pools.snapshots().forEach(p -> {
            PoolReader r = new PoolReader(pools, p.entity());
            present.put(r, () -> bindPool(r));
            modeOf.put(r, "pool");
        }));
        registered.entrySet().removeIf(e -> {
            if (present.containsKey(e.getKey())) {
                return false;
            }
            e.getValue().forEach(registry::remove);
            modes.remove(e.getKey());
            return true;
        });
        Map<String, Integer> counts = new HashMap<>();
        modes.values().forEach(m -> counts.merge(m, 1, Integer::sum));
        present.forEach((key, bind) -> {
            if (registered.containsKey(key)) {
                return;
            }
            String mode = modeOf.get(key);
            if (mode != null) {
                if (counts.getOrDefault(mode, 0) >= maxTags) {
                    if (warned.add(mode)) {
                        log.warn("idworker: more than {} {} generators; further ones get no meters (raise {} to "
                                + "meter more)", maxTags, mode, MAX_TAGS_PROPERTY);
                    }
                    return;
                }
                counts.merge(mode, 1, Integer::sum);
                modes.put(key, mode);
            }
            List<Meter> meters = new ArrayList<>();
            current = meters;
            try {
                bind.run();
            } finally {
                current = null;
            }
            registered.put(key, meters);
        });
    }

    /** The list the bind in progress adds its meters to; only touched under this object's lock. */
    private @Nullable List<Meter> current;

    /** {@link #current}, which the meter helpers below are only called to fill, from a bind in progress. */
    private List<Meter> bindingInto() {
        return Objects.requireNonNull(current, "no bind in progress");
    }

    private void bindWorker(AbstractIdWorker w) {
        Tags tags = Tags.of("namespace", w.namespace());
        issued(w, "snowflake", w.namespace(), AbstractIdWorker::issuedCount);
        gauge("idworker.lease.state", "1 while the worker holds a lease it may issue under, 0 when fenced, not started "
                + "or closed", null, tags, w, x -> x.status().canIssue() ? 1 : 0);
        gauge("idworker.lease.worker.id", "The leased worker id, -1 without a lease", null, tags, w,
                x -> x.currentLease() == null ? -1 : x.currentLease().workerId());
        gauge("idworker.lease.high.water.remaining", "Time until the lease's stored high-water: how long the worker "
                + "issues if its centre stops answering now; negative when fenced", "seconds", tags, w, x -> {
                    WorkerStatus s = x.status();
                    return s.lease() == null ? Double.NaN : s.millisToHighWater() / 1000.0;
                });
        counter("idworker.lease.switches", "Moves to another worker id (lease lost, clock stepped back)", tags, w,
                AbstractIdWorker::leaseSwitchCount);
        counter("idworker.lease.fence.trips", "Callers that found the high-water reached and waited for a renewal",
                tags, w, AbstractIdWorker::fenceTripCount);
        // a point in time, as Prometheus keeps them (process_start_time_seconds): an alert subtracts time()
        gauge("idworker.layout.end.time", "When the layout's timestamp bits run out, in seconds since 1970-01-01 UTC; "
                + "the worker issues no ID after it", "seconds", tags, w, x -> x.layout().endOfLife().getEpochSecond());
    }

    /**
     * A named generator of {@code idworker.generators}: its worker meters above are keyed by its namespace like every
     * worker's (one set of tag keys per meter name, as Prometheus requires); this gauge ties its name to that
     * namespace and says by name whether it can issue.
     */
    private void bindGenerator(GeneratorReader r) {
        gauge(GENERATOR_STATE, "1 while the named generator holds a lease it may issue under, 0 when fenced, not "
                + "started or closed", null, Tags.of("generator", r.name(), "namespace", r.worker().namespace()), r,
                x -> x.worker().status().canIssue() ? 1 : 0);
    }

    private void bindSegment(SegmentIdGenerator g) {
        Tags tags = Tags.of("tag", g.bizTag());
        issued(g, "segment", g.bizTag(), x -> x.status().issued());
        timer("idworker.segment.refills", "Ranges loaded from the database and the time the loads took", tags, g,
                x -> x.status().refills(), x -> x.status().refillNanos());
        counter("idworker.segment.refill.failures", "Range loads that failed", tags, g, x -> x.status().failedRefills());
        counter("idworker.segment.waits", "Calls that found both buffers empty and waited for a load", tags, g,
                x -> x.status().waits());
        gauge("idworker.segment.remaining", "Numbers left in memory: the current range's rest plus the next range",
                null, tags, g, x -> x.status().remaining());
    }

    private void bindSequence(RedisSegmentIdGenerator g) {
        Tags tags = Tags.of("tag", g.bizTag());
        issued(g, "sequence", g.bizTag(), x -> x.status().issued());
        timer("idworker.sequence.refills", "Refills of the range in Redis run by this node and their time", tags, g,
                x -> x.status().refills(), x -> x.status().refillNanos());
        counter("idworker.sequence.waits", "Calls that found the range in Redis missing or used up and waited for a "
                + "refill", tags, g, x -> x.status().waits());
        counter("idworker.sequence.discarded.ranges", "Ranges allocated but not installed (gaps)", tags, g,
                x -> x.status().discardedRanges());
        counter("idworker.sequence.script.calls", "segment-next script calls made by this node; combined calls share one",
                tags, g, x -> x.status().scriptCalls());
        counter("idworker.sequence.coalesced.calls", "Calls served by a script call shared with another call",
                tags, g, x -> x.status().coalescedCalls());
        counter("idworker.sequence.installed.ahead", "Ranges installed in Redis ahead of the current one", tags, g,
                x -> x.status().installedAhead());
    }

    private void bindSerialRule(RuleReader r) {
        Tags tags = Tags.of("rule", r.rule());
        issued(r, "serial", r.rule(), x -> x.status().issued());
        timer("idworker.serial.refills", "Refills of the rule's stock made by this node and their time", tags, r,
                x -> x.status().refills(), x -> x.status().refillNanos());
        counter("idworker.serial.waits", "Calls that found the stock short and waited for a refill", tags, r,
                x -> x.status().waits());
        gauge("idworker.serial.stock", "Numbers left in the rule's stock as this node saw it last, -1 before the "
                + "first hand-out", null, tags, r, x -> x.status().stock());
        gauge("idworker.serial.period.remaining", "Numbers of the current period not yet taken, as this node last saw "
                + "them, before the rule's max; -1 when this node has taken nothing in the current period", null, tags,
                r, x -> x.status().periodRemaining());
        gauge("idworker.serial.period.size", "Numbers in each period of the rule: max - start + 1; -1 before the rule "
                + "was read", null, tags, r, x -> {
                    SerialRuleStatus s = x.status();
                    return s.max() < 0 ? -1 : s.max() - s.start() + 1;
                });
    }

    private void bindPool(PoolReader p) {
        Tags tags = Tags.of("entity", p.entity());
        issued(p, "pool", p.entity(), x -> x.snapshot().issued());
        gauge("idworker.pool.level", "IDs in the pool as this node saw it last, -1 before it saw it", null, tags, p,
                x -> x.snapshot().level());
        gauge("idworker.pool.threshold.level", "Level below which a refill starts", null, tags, p,
                x -> x.snapshot().thresholdLevel());
        timer("idworker.pool.refills", "Refills appended by this node and their time", tags, p,
                x -> x.snapshot().refills(), x -> x.snapshot().refillNanos());
        // one description for both reasons: Prometheus keeps a single help text per name
        String refusals = "Takes refused, by reason: empty (the pool held too few IDs) or rate (the entity's limit)";
        counter("idworker.pool.refusals", refusals, tags.and("reason", "empty"), p,
                x -> x.snapshot().emptyRefusals());
        counter("idworker.pool.refusals", refusals, tags.and("reason", "rate"), p, x -> x.snapshot().rateLimited());
        gauge("idworker.pool.check.age", "Time since this node's last refill check of the pool finished", "seconds",
                tags, p, x -> {
                    // measured on the monotonic clock by the pools: a wall-clock step moves no age
                    return x.snapshot().checkAge().toNanos() / 1e9;
                });
    }

    /** A named generator; the key of its meters, apart from its worker's, which are keyed by the worker. */
    private record GeneratorReader(String name, AbstractIdWorker worker) {
    }

    /** Reads one rule's status at publish time, that rule only; zeros when the rule went away meanwhile. */
    private record RuleReader(SerialNumbers serials, String rule) {
        SerialRuleStatus status() {
            return serials.ruleStatus(rule)
                    .orElseGet(() -> new SerialRuleStatus(rule, "", null, -1, -1, -1, -1, 0, 0, 0, 0, 0, false,
                            null, null));
        }
    }

    /** Reads one pool's snapshot at publish time, that pool only; zeros when the pool went away meanwhile. */
    private record PoolReader(IdPools pools, String entity) {
        PoolSnapshot snapshot() {
            return pools.snapshot(entity).orElseGet(() -> new PoolSnapshot(entity, -1, null, 0, 0, Duration.ZERO,
                    Duration.ZERO, Instant.now(), null, Duration.ZERO, false, null, false, null, 0, 0, 0, 0, 0));
        }
    }

    private <T> void issued(T source, String mode, String name, ToDoubleFunction<T> count) {
        counter(ISSUED, "IDs issued by this process", Tags.of("mode", mode, "name", name), source, count);
    }

    private <T> void counter(String name, String description, Tags tags, T source, ToDoubleFunction<T> count) {
        bindingInto().add(FunctionCounter.builder(name, source, count).description(description).tags(tags)
                .register(registry));
    }

    private <T> void gauge(String name, String description, @Nullable String unit, Tags tags, T source,
                           ToDoubleFunction<T> value) {
        bindingInto().add(Gauge.builder(name, source, value).description(description).baseUnit(unit).tags(tags)
                .register(registry));
    }

    private <T> void timer(String name, String description, Tags tags, T source, ToDoubleFunction<T> count,
                           ToDoubleFunction<T> totalNanos) {
        bindingInto().add(FunctionTimer.builder(name, source, x -> (long) count.applyAsDouble(x), totalNanos,
                TimeUnit.NANOSECONDS).description(description).tags(tags).register(registry));
    }

    /** Stops refreshing and removes every meter this object registered. */
    @Override
    public synchronized void close() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
        registered.values().forEach(meters -> meters.forEach(registry::remove));
        registered.clear();
        modes.clear();
    }
}

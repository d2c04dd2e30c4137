package io.github.idworker.serial;

import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentStatus;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.StaleSegmentException;
import io.github.idworker.snowflake.MillisClock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serial numbers for teams without Redis: the same rules, each (rule, period) served in process from ranges
 * reserved in the {@link SerialStore}, double-buffered like segment mode.
 *
 * <p>Guarantees: no string is handed out twice, across threads, nodes and restarts (each range is reserved
 * once, durably, before any of its numbers is used); the numbers one node hands out for a period increase; the
 * date is the hand-out date in the rule's zone. Not guaranteed: one order across nodes, or no gaps — nodes
 * interleave, and a restart skips the rest of its ranges. For contiguous numbers across nodes use
 * {@code RedisSerialNumbers}.
 *
 * <p>Steps of {@code next(rule, n)}:
 * <ol>
 *   <li>Read the clock once; the rule's zone turns it into the date, which gives both the period key and the
 *       printed date, so a number is never printed with another period's date.</li>
 *   <li>Take {@code n} numbers from the (rule, period)'s {@link SegmentIdGenerator}, created on first use with
 *       ranges of {@code min-batch .. max-batch} numbers sized by demand.</li>
 *   <li>A range that would pass the rule's {@code max} is cut at it; after it, {@link SerialExhaustedException}.</li>
 *   <li>A period whose high-water was moved back in the store fails callers at once with the store's
 *       {@link SerialPeriodMovedBackException} once the ranges already reserved are used up, on this node and on
 *       one started afterwards alike; the generator tries the store again after a short pause, so raising the
 *       high-water is the whole recovery.</li>
 * </ol>
 * A new period's generator replaces the rule's earlier ones in the lookup, so a rule keeps at most a few
 * generators however long it runs. A rule re-read with other settings (an operator raised its {@code max} or
 * changed its batch bounds in the table) gets a new generator for its current period, so the change applies
 * from the next call; the rest of the old generator's ranges is skipped. Thread-safe.
 */
public class LocalSerialNumbers implements SerialNumbers, AutoCloseable {

    /** The {@link SerialRuleStatus#store()} of these serials. */
    static final String STORE = "local";

    private final SerialStore store;
    private final SerialRules rules;
    private final MillisClock clock;
    private final Map<String, PeriodGenerator> generators = new ConcurrentHashMap<>();
    /**
     * Guards every change of {@link #generators} (new period, rule re-read, earlier periods dropped) and the reads
     * of {@link #ruleStatuses()}; never taken by a call that finds its generator in the map.
     */
    private final Object retireLock = new Object();
    /** Per rule: the totals of generators no longer serving it; the live ones are read at status time. */
    private final Map<String, SerialRuleStats> stats = new ConcurrentHashMap<>();

    /** The generator of one (rule, period), serving the rule as it was read when the generator was made. */
    private record PeriodGenerator(SerialRule rule, String period, SegmentIdGenerator generator,
                                   PeriodAllocator allocator) {
    }

    /**
     * @param store the durable high-waters
     * @param rules the rule lookup over the same store
     * @param clock the wall clock that gives the date
     */
    public LocalSerialNumbers(SerialStore store, SerialRules rules, MillisClock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String next(String rule) {
        SerialRule r = rules.get(rule);
        long now = clock.millis();
        var date = r.date(now);
        String period = r.period(date);
        long number = take(r, period, 1)[0];
        return r.format(r.dateText(date), number);
    }

    @Override
    public List<String> next(String rule, int count) {
        SerialRule r = rules.get(rule);
        r.checkCount(count);
        var date = r.date(clock.millis());
        String period = r.period(date);
        long[] numbers = take(r, period, count);
        String dateText = r.dateText(date);
        List<String> out = new ArrayList<>(count);
        for (long n : numbers) {
            out.add(r.format(dateText, n));
        }
        return out;
    }

    private long[] take(SerialRule rule, String period, int count) {
        SegmentIdGenerator generator = generator(rule, period);
        try {
            return count == 1 ? new long[] {generator.nextId()} : generator.nextIds(count);
        } catch (SegmentExhaustedException e) {
            throw new SerialExhaustedException(rule.name(), period, rule.max());
        } catch (PeriodMovedBack e) {
            throw e.refusal;
        } catch (SegmentRefillTimeoutException e) {
            throw new SerialStockEmptyException(rule.name(), period, generator.options().maxWait(),
                    "the local serials' bounded wait for a range", e.getCause());
        }
    }

    private SegmentIdGenerator generator(SerialRule rule, String period) {
        String key = rule.name() + '\u0000' + period;
        // hot path: one map read, no lock
        PeriodGenerator existing = generators.get(key);
        if (existing != null && existing.rule().equals(rule)) {
            return existing.generator();
        }
        // a new period, or the rule was tuned in the table (max, batch bounds): a generator for the rule as read
        // now, since its allocator caps ranges at the rule's max and its steps follow the batch bounds. The one
        // it replaces is dropped, not closed: a caller still holding it keeps using its current range, which is
        // unique all the same, and the new one reserves above every range reserved so far.
        // Slow path, once per period and rule: under the lock ruleStatuses() reads under, so a generator is
        // counted either live or retired, never both and never neither, and retired exactly once.
        synchronized (retireLock) {
            PeriodGenerator g = generators.get(key);
            if (g != null && g.rule().equals(rule)) {
                return g.generator();
            }
            PeriodAllocator allocator = new PeriodAllocator(store, rule, period);
            PeriodGenerator current = new PeriodGenerator(rule, period, new SegmentIdGenerator(allocator, key,
                    SegmentGeneratorOptions.builder()
                            .minStep(rule.minBatch())
                            .maxStep(rule.maxBatch())
                            .initialStep(rule.minBatch())
                            .build()), allocator);
            generators.put(key, current);
            if (g != null) {
                retire(g);
            }
            // earlier periods of the rule are over: drop their generators likewise
            for (Map.Entry<String, PeriodGenerator> e : generators.entrySet()) {
                PeriodGenerator old = e.getValue();
                if (old.rule().name().equals(rule.name()) && old.period().compareTo(period) < 0
                        && generators.remove(e.getKey(), old)) {
                    retire(old);
                }
            }
            return current.generator();
        }
    }

    /**
     * Keeps the counters of a generator that stops serving its rule. A caller still holding it may take a few
     * more numbers, which the totals then miss: a meter under-counts by those, it never counts one twice.
     */
    private void retire(PeriodGenerator g) {
        stats(g.rule().name()).retire(g.generator().status());
    }

    private SerialRuleStats stats(String rule) {
        return stats.computeIfAbsent(rule, SerialRuleStats::new);
    }

    /**
     * Reads memory only: the rules' retired totals plus every generator still in the lookup (the latest period's
     * gives period, stock and failure), so a rule's {@code issued} never goes back while its period changes.
     */
    @Override
    public List<SerialRuleStatus> ruleStatuses() {
        synchronized (retireLock) {
            Map<String, List<PeriodGenerator>> live = new TreeMap<>();
            for (PeriodGenerator g : generators.values()) {
                live.computeIfAbsent(g.rule().name(), n -> new ArrayList<>(2)).add(g);
            }
            Set<String> names = new TreeSet<>(rules.names());
            names.addAll(live.keySet());
            List<SerialRuleStatus> out = new ArrayList<>(names.size());
            for (String name : names) {
                out.add(statusOf(name, live.getOrDefault(name, List.of())));
            }
            return out;
        }
    }

    /** Reads memory only: the status of one rule, or empty when this node neither knows nor served it. */
    @Override
    public Optional<SerialRuleStatus> ruleStatus(String rule) {
        synchronized (retireLock) {
            List<PeriodGenerator> live = new ArrayList<>(2);
            for (PeriodGenerator g : generators.values()) {
                if (g.rule().name().equals(rule)) {
                    live.add(g);
                }
            }
            if (live.isEmpty() && !stats.containsKey(rule) && !rules.names().contains(rule)) {
                return Optional.empty();
            }
            return Optional.of(statusOf(rule, live));
        }
    }

    /** Under {@link #retireLock}. */
    private SerialRuleStatus statusOf(String name, List<PeriodGenerator> live) {
        PeriodGenerator latest = null;
        List<SegmentStatus> earlier = new ArrayList<>(1);
        for (PeriodGenerator g : live) {
            if (latest == null || g.period().compareTo(latest.period()) > 0) {
                if (latest != null) {
                    earlier.add(latest.generator().status());
                }
                latest = g;
            } else {
                earlier.add(g.generator().status());
            }
        }
        // the rule as last read gives max, so a max an operator raised counts at once; else the one served
        SerialRule known = rules.cached(name).orElse(latest == null ? null : latest.rule());
        long now = clock.millis();
        SerialRuleStatus status = latest == null ? stats(name).status(STORE, known, now)
                : stats(name).status(STORE, known, now, latest.allocator().reservedTo, latest.period(),
                        latest.generator().status(), earlier);
        return status.refusedFor(rules.refusal(name));
    }

    /** Reserves the ranges of one (rule, period) for its generator, cut at the rule's max. */
    private static final class PeriodAllocator implements SegmentAllocator {

        private final SerialStore store;
        private final SerialRule rule;
        private final String period;
        /**
         * The highest number of the period the store said was reserved, by any node, when this allocator last
         * asked: the last number of its last range, or the rule's max once the store refused for it; -1 before.
         */
        volatile long reservedTo = -1;

        PeriodAllocator(SerialStore store, SerialRule rule, String period) {
            this.store = store;
            this.rule = rule;
            this.period = period;
        }

        @Override
        public Segment allocate(String bizTag, int step) {
            SerialRange range;
            try {
                range = store.reserve(rule, period, step);
            } catch (SerialExhaustedException e) {
                reservedTo = e.getMax();
                throw new SegmentExhaustedException(bizTag, rule.max(), String.valueOf(e.getMessage()));
            } catch (SerialPeriodMovedBackException e) {
                // a stale store fails waiting callers at once, as the generator treats every StaleSegmentException
                throw new PeriodMovedBack(bizTag, e);
            }
            reservedTo = range.last();
            return new Segment(bizTag, range.last(), (int) range.size());
        }

        @Override
        public boolean register(String bizTag, long startAfter, int defaultStep) {
            throw new UnsupportedOperationException("serial periods open on first reservation");
        }
    }

    /** The store's refusal of a period moved back, carried through the generator to the caller unchanged. */
    private static final class PeriodMovedBack extends StaleSegmentException {

        final SerialPeriodMovedBackException refusal;

        PeriodMovedBack(String bizTag, SerialPeriodMovedBackException refusal) {
            // an idworker exception always carries its message
            super(Objects.requireNonNull(refusal.getMessage()), bizTag, null, refusal.getReservedTo());
            this.refusal = refusal;
            initCause(refusal);
        }
    }

    /** Stops every generator's loading. */
    @Override
    public void close() {
        generators.values().forEach(g -> g.generator().close());
        generators.clear();
    }
}

package io.github.idworker.test.serial.redis;

import io.github.idworker.test.Pacing;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStockEmptyException;
import io.github.idworker.serial.UnknownSerialRuleException;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.test.ManualClock;
import io.github.idworker.test.segment.SequenceCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Strict serials over one Redis and one database, as independent nodes use them: unique, first come first
 * served and contiguous through many refills; each period with its own date and its own count; nothing past
 * {@code max}; a steady caller never waits; demand sizes the refills; the stock serves on while the database is
 * down; Redis losing the stock only makes a gap. Subclasses pick the Redis and the database.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class AbstractRedisSerialNumbersTest {

    static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    protected SerialRedisHarness harness;

    /** The Redis and database under test. */
    protected abstract SerialRedisHarness createHarness();

    @BeforeEach
    void open() {
        harness = createHarness();
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private static final java.time.format.DateTimeFormatter DAY = java.time.format.DateTimeFormatter
            .ofPattern("yyyyMMdd").withZone(SHANGHAI);

    /** Redis's own clock, epoch ms: manual clocks are set relative to it, never to a fixed day. */
    private long redisNow() {
        Object millis = harness.admin().eval(
                "local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)");
        return (Long) millis;
    }

    /** The next midnight in Shanghai after Redis's now: a day that moves with the calendar. */
    private long nextShanghaiMidnight() {
        return Instant.ofEpochMilli(redisNow()).atZone(SHANGHAI).toLocalDate().plusDays(1)
                .atStartOfDay(SHANGHAI).toInstant().toEpochMilli();
    }

    private static String day(long millis) {
        return DAY.format(Instant.ofEpochMilli(millis));
    }

    @Test
    void fourNodesGetUniqueContiguousNumbersFirstComeFirstServedThroughManyRefills() throws Exception {
        SerialRule rule = harness.newRule(b -> b.prefix("ORD").datePattern("yyyyMMdd").width(8).reset("daily")
                .zone("Asia/Shanghai").start(1).minBatch(20).maxBatch(60).critical(10));
        List<RedisSerialNumbers> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(harness.newNode(SerialRedisHarness.options().maxWait(Duration.ofSeconds(20)).build()));
        }
        ConcurrentLinkedQueue<SequenceCalls.Call> calls = new ConcurrentLinkedQueue<>();
        Set<String> dates = ConcurrentHashMap.newKeySet();
        int callsEach = 1_500;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CyclicBarrier start = new CyclicBarrier(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                RedisSerialNumbers node = nodes.get(c);
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < callsEach; i++) {
                        int count = random.nextInt(100) < 70 ? 1 : 1 + random.nextInt(20);
                        long begin = System.nanoTime();
                        List<String> got = count == 1 ? List.of(node.next(rule.name())) : node.next(rule.name(), count);
                        long end = System.nanoTime();
                        assertThat(got).hasSize(count);
                        long first = SerialRedisHarness.number(rule, got.get(0));
                        for (int k = 0; k < count; k++) {
                            assertThat(SerialRedisHarness.number(rule, got.get(k))).isEqualTo(first + k);
                            assertThat(got.get(k)).startsWith("ORD").hasSize(3 + 8 + 8);
                        }
                        dates.add(got.get(0).substring(3, 11));
                        calls.add(new SequenceCalls.Call(client, begin, end, first, first + count - 1));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        SequenceCalls.assertUnique(calls);
        SequenceCalls.assertFirstComeFirstServed(calls);
        long issued = SequenceCalls.numbers(calls);
        long highest = SequenceCalls.highest(calls);
        // the run may straddle midnight in Shanghai: then each date's numbers start again at 1
        if (dates.size() == 1) {
            assertThat(highest).as("contiguous: 1..highest, no gap without a fault").isEqualTo(issued);
        }
        long refills = nodes.stream().mapToLong(RedisSerialNumbers::refills).sum();
        assertThat(refills).isGreaterThan(50);
        System.out.printf("SERIAL-RESULT %s four nodes: %d calls, %d numbers, highest %d, %d refills, %d calls "
                        + "waited%n", getClass().getSimpleName(), calls.size(), issued, highest, refills,
                nodes.stream().mapToLong(RedisSerialNumbers::waitedCalls).sum());
    }

    @Test
    void eachPeriodHasItsOwnDateAndCountAndAStockOfYesterdayNeverServesToday() {
        long midnight = nextShanghaiMidnight();
        String before = day(midnight - 1);
        String after = day(midnight);
        ManualClock clock = new ManualClock(midnight - 1_000);
        SerialRule rule = harness.newRule(b -> b.prefix("ORD").datePattern("yyyyMMdd").width(6).reset("daily")
                .zone("Asia/Shanghai").minBatch(100).maxBatch(100).critical(10));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().clock(clock).build());
        RedisSerialNumbers other = harness.newNode(SerialRedisHarness.options().clock(clock).build());
        assertThat(node.next(rule.name())).isEqualTo("ORD" + before + "000001");
        assertThat(other.next(rule.name(), 3)).containsExactly("ORD" + before + "000002", "ORD" + before + "000003",
                "ORD" + before + "000004");
        // yesterday's stock still holds 96 numbers when midnight passes in Shanghai
        clock.set(midnight);
        assertThat(other.next(rule.name())).isEqualTo("ORD" + after + "000001");
        assertThat(node.next(rule.name(), 2)).containsExactly("ORD" + after + "000002", "ORD" + after + "000003");
        // a node whose clock is still before midnight draws from yesterday's stock, with yesterday's date
        ManualClock late = new ManualClock(midnight - 100);
        RedisSerialNumbers lagging = harness.newNode(SerialRedisHarness.options().clock(late).build());
        assertThat(lagging.next(rule.name())).isEqualTo("ORD" + before + "000005");
        // in UTC it is still the day before (Shanghai is UTC+8): the rule's zone decides, not the machine's
        assertThat(DAY.withZone(ZoneId.of("UTC")).format(Instant.ofEpochMilli(clock.millis()))).isEqualTo(before);
        assertThat(harness.newStore().highWater(rule.name(), before)).hasValue(100);
        assertThat(harness.newStore().highWater(rule.name(), after)).hasValue(100);
    }

    /**
     * A node whose clock is days away from Redis's (behind, then ahead) still serves its rule from one stock:
     * the stock's expiry is relative, so Redis's clock does not expire it at once, and the date printed is the
     * node's. On a stock that expired at an absolute time of the node's clock the behind case refilled on every
     * call, or ran dry.
     */
    @Test
    void aNodeClockThreeDaysBehindOrAheadOfRedisStillServesFromOneStock() {
        for (long skew : new long[] {-Duration.ofDays(3).toMillis(), Duration.ofDays(3).toMillis()}) {
            ManualClock clock = new ManualClock(redisNow() + skew);
            SerialRule rule = harness.newRule(b -> b.prefix("ORD").datePattern("yyyyMMdd").width(6).reset("daily")
                    .zone("Asia/Shanghai").minBatch(50).maxBatch(50).critical(5));
            RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().clock(clock)
                    .refillExecutor(Runnable::run).build());
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                got.add(node.next(rule.name()));
            }
            String date = day(clock.millis());
            assertThat(got).as("skew %d ms", skew).first().isEqualTo("ORD" + date + "000001");
            assertThat(got).as("skew %d ms", skew).last().isEqualTo("ORD" + date + "000020");
            assertThat(node.refills()).as("refills with skew %d ms: one stock served all 20 calls", skew)
                    .isEqualTo(1);
            long ttl = harness.admin().pttl(SerialRedisHarness.stockKey(rule.name(), date));
            assertThat(ttl).as("the stock's life in Redis with skew %d ms", skew)
                    .isGreaterThan(Duration.ofDays(2).toMillis());
        }
    }

    @Test
    void maxIsTheLastNumberIssuedAndThenATypedError() throws Exception {
        SerialRule rule = harness.newRule(b -> b.prefix("INV-").width(3).start(100).max(180).minBatch(7).maxBatch(30)
                .critical(3));
        List<RedisSerialNumbers> nodes = List.of(harness.newNode(SerialRedisHarness.options().build()),
                harness.newNode(SerialRedisHarness.options().build()), harness.newNode(SerialRedisHarness.options().build()));
        Set<Long> numbers = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger exhausted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                RedisSerialNumbers node = nodes.get(t % 3);
                futures.add(pool.submit(() -> {
                    while (true) {
                        try {
                            if (!numbers.add(SerialRedisHarness.number(rule, node.next(rule.name())))) {
                                duplicates.incrementAndGet();
                            }
                        } catch (SerialExhaustedException e) {
                            assertThat(e.getRule()).isEqualTo(rule.name());
                            assertThat(e.getPeriod()).isEqualTo("all");
                            assertThat(e.getMax()).isEqualTo(180);
                            assertThat(e.getMessage()).contains(rule.name(), "all", "180");
                            exhausted.incrementAndGet();
                            return null;
                        }
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(duplicates).hasValue(0);
        assertThat(exhausted).hasValue(6);
        assertThat(numbers).hasSize(81);
        assertThat(numbers.stream().mapToLong(Long::longValue).max()).hasValue(180);
        assertThat(numbers.stream().mapToLong(Long::longValue).min()).hasValue(100);
        assertThat(harness.newStore().highWater(rule.name(), "all")).hasValue(180);
        assertThatThrownBy(() -> nodes.get(0).next(rule.name(), 2)).isInstanceOf(SerialExhaustedException.class);
    }

    @Test
    void aBatchPastMaxTakesNothingAndSmallerTakesStillGetTheRest() {
        SerialRule rule = harness.newRule(b -> b.width(2).start(1).max(10).minBatch(4).maxBatch(20).critical(1));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        assertThat(node.next(rule.name(), 7)).containsExactly("01", "02", "03", "04", "05", "06", "07");
        assertThatThrownBy(() -> node.next(rule.name(), 4)).isInstanceOf(SerialExhaustedException.class);
        assertThat(node.next(rule.name(), 3)).containsExactly("08", "09", "10");
        assertThatThrownBy(() -> node.next(rule.name())).isInstanceOf(SerialExhaustedException.class)
                .hasMessageContaining("max 10");
    }

    @Test
    @Tag("exclusive")
    void aSteadyCallerNeverWaitsOnceWarmedUp() {
        // a refill starts with 100 numbers left, 200 ms at this pace: room for a slow refill on a busy machine
        SerialRule rule = harness.newRule(b -> b.prefix("T").width(9).minBatch(150).maxBatch(1_000).critical(100));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        node.next(rule.name()); // warm-up: the first call finds no stock and fills it
        assertThat(node.waitedCalls()).isEqualTo(1);
        long interval = TimeUnit.MILLISECONDS.toNanos(2);
        long next = System.nanoTime();
        for (int i = 0; i < 1_500; i++) { // 500 per second for 3 s
            next += interval;
            Pacing.parkUntil(next);
            node.next(rule.name());
        }
        System.out.printf("SERIAL-RESULT %s steady caller: 1500 calls at 500/s, %d waited after warm-up, %d refills%n",
                getClass().getSimpleName(), node.waitedCalls() - 1, node.refills());
        assertThat(node.waitedCalls()).as("calls that waited for a refill, the warm-up call included").isEqualTo(1);
        assertThat(node.refills()).as("the stock was refilled while the caller ran").isGreaterThanOrEqualTo(5);
    }

    @Test
    void aBurstOfTenTimesTheSteadyPaceGrowsTheRefills() {
        ManualClock clock = new ManualClock(redisNow());
        SerialRule rule = harness.newRule(b -> b.prefix("B").width(9).minBatch(10).maxBatch(100_000).critical(5));
        // a refill covers 5 minutes of demand; refills run on the caller's thread so the sizes are deterministic
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().clock(clock)
                .refillExecutor(Runnable::run).build());
        // steady: 100 per minute for 30 minutes
        for (int i = 0; i < 3_000; i++) {
            node.next(rule.name());
            clock.advance(600);
        }
        long steadyRefill = node.lastRefillSize();
        long steadyCounted = harness.demandCounted(rule.name());
        // burst: ten times the pace for 5 minutes
        for (int i = 0; i < 5_000; i++) {
            node.next(rule.name());
            clock.advance(60);
        }
        long burstRefill = node.lastRefillSize();
        long counted = harness.demandCounted(rule.name());
        System.out.printf("SERIAL-RESULT %s demand: steady 100/min -> refill %d (counters %d); burst 1000/min for "
                + "5 min -> refill %d (counters %d)%n", getClass().getSimpleName(), steadyRefill, steadyCounted,
                burstRefill, counted);
        assertThat(steadyCounted).isEqualTo(3_000);
        assertThat(counted).isEqualTo(8_000);
        assertThat(steadyRefill).isBetween(400L, 600L); // 100/min over 5 minutes
        assertThat(burstRefill).isGreaterThan(2 * steadyRefill);
    }

    @Test
    void theStockKeepsServingWhileTheDatabaseIsDownAndThenFailsTyped() {
        SerialRule rule = harness.newRule(b -> b.prefix("D").width(6).minBatch(200).maxBatch(200).critical(0));
        HikariDataSource ownPool = harness.newPool();
        RedisSerialNumbers node = harness.newNode(new JdbcSerialStore(ownPool),
                SerialRedisHarness.options().maxWait(Duration.ofMillis(300)).build());
        Set<String> seen = new HashSet<>();
        seen.add(node.next(rule.name()));
        ownPool.close(); // the database is gone for this node: its pool hands out no more connections
        for (int i = 0; i < 199; i++) {
            assertThat(seen.add(node.next(rule.name()))).isTrue();
        }
        long begin = System.nanoTime();
        assertThatThrownBy(() -> node.next(rule.name())).isInstanceOf(SerialStockEmptyException.class)
                .hasMessageContaining(rule.name()).hasMessageContaining("idworker.serial.redis.max-wait");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin)).isLessThan(5_000);
    }

    @Test
    void redisLosingTheStockMakesAGapNeverAReuse() {
        SerialRule rule = harness.newRule(b -> b.prefix("L").width(6).minBatch(50).maxBatch(50).critical(5));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        List<String> before = node.next(rule.name(), 10);
        assertThat(before.get(9)).isEqualTo("L000010");
        harness.admin().del(SerialRedisHarness.stockKey(rule.name(), "all"));
        assertThat(node.next(rule.name())).isEqualTo("L000051"); // above the database's high-water 50
        // the lock alone lost: nothing changes
        harness.admin().del(SerialRedisHarness.stockKey(rule.name(), "all") + ":lock");
        assertThat(node.next(rule.name())).isEqualTo("L000052");
    }

    @Test
    void aCallOrABatchIsOneRoundTripWhileTheStockLasts() {
        SerialRule rule = harness.newRule(b -> b.prefix("R").width(6).minBatch(1_000).maxBatch(1_000).critical(10));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        node.next(rule.name());
        // the caller's round trips: the first call's refill may still be releasing its lock on another thread,
        // which a count of every client's round trips saw on a loaded machine (2 instead of 1)
        harness.resetRoundTrips();
        node.next(rule.name());
        assertThat(harness.roundTrips).hasValue(1);
        harness.resetRoundTrips();
        assertThat(node.next(rule.name(), 100)).hasSize(100);
        assertThat(harness.roundTrips).hasValue(1);
    }

    @Test
    void unknownRulesAndBadCountsAreRefused() {
        SerialRule rule = harness.newRule(b -> b.width(4).maxBatch(500));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        assertThatThrownBy(() -> node.next("no-such-rule")).isInstanceOf(UnknownSerialRuleException.class)
                .hasMessageContaining("no-such-rule");
        assertThatThrownBy(() -> node.next(rule.name(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count").hasMessageContaining("500");
        assertThatThrownBy(() -> node.next(rule.name(), 501)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count");
    }

    @Test
    void aRuleAnOperatorInsertsIsServedWithoutARestart() throws Exception {
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        SerialRule rule = harness.newRule(b -> b.prefix("OPS").width(5));
        // newRule wrote it through another store instance, as an operator's INSERT would; this node never saw it
        assertThat(node.next(rule.name())).isEqualTo("OPS00001");
    }

    /**
     * An operator lowers {@code max} in the table below what the stock in Redis already holds: once the node has
     * read the rule again, nothing past the new max is handed out and a call that needs more gets the typed
     * error at once. (Found by an adversarial review: the refill saw "enough left" and callers spun until
     * {@code max-wait}.)
     */
    @Test
    void aMaxLoweredBelowTheStockEndsTheRuleAtTheNewMax() throws Exception {
        SerialRule rule = harness.newRule(b -> b.prefix("M").width(6).minBatch(100).maxBatch(100).critical(0));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().maxWait(Duration.ofSeconds(5)).build(),
                Duration.ofMillis(100));
        assertThat(node.next(rule.name(), 10).get(9)).isEqualTo("M000010"); // the stock holds 1..100
        harness.setRuleColumn(rule.name(), "max_number", 20);
        Thread.sleep(150);
        node.next(rule.name()); // the re-read of the rule starts in the background
        Thread.sleep(150);
        long begin = System.nanoTime();
        assertThatThrownBy(() -> node.next(rule.name(), 15)).as("15 more than the 9 left below the new max")
                .isInstanceOfSatisfying(SerialExhaustedException.class, e -> assertThat(e.getMax()).isEqualTo(20));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin)).as("ms until the typed error")
                .isLessThan(2_000);
        List<String> rest = new ArrayList<>();
        assertThatThrownBy(() -> {
            while (true) {
                rest.add(node.next(rule.name()));
            }
        }).isInstanceOfSatisfying(SerialExhaustedException.class, e -> assertThat(e.getMax()).isEqualTo(20));
        assertThat(rest).last().isEqualTo("M000020");
        assertThatThrownBy(() -> node.next(rule.name(), 5)).isInstanceOf(SerialExhaustedException.class);
    }

    /**
     * Eight threads on two nodes issue while the shared clock passes midnight in the rule's zone: the switch from
     * one period's stock to the next runs under load. No string repeats, every call prints a date its clock
     * showed while it ran, every call that began after midnight prints the new date, and each day's numbers are
     * exactly 1..n.
     */
    @Test
    void manyThreadsAcrossMidnightNeverRepeatAndEachDayCountsFromOne() throws Exception {
        long midnight = nextShanghaiMidnight();
        ManualClock clock = new ManualClock(midnight - 1_000);
        SerialRule rule = harness.newRule(b -> b.prefix("ORD").datePattern("yyyyMMdd").width(6).reset("daily")
                .zone("Asia/Shanghai").minBatch(20).maxBatch(50).critical(5));
        List<RedisSerialNumbers> nodes = List.of(
                harness.newNode(SerialRedisHarness.options().clock(clock).maxWait(Duration.ofSeconds(20)).build()),
                harness.newNode(SerialRedisHarness.options().clock(clock).maxWait(Duration.ofSeconds(20)).build()));
        record Got(long clockBefore, long clockAfter, List<String> serials) {
        }
        ConcurrentLinkedQueue<Got> calls = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CyclicBarrier go = new CyclicBarrier(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                RedisSerialNumbers node = nodes.get(t % 2);
                futures.add(pool.submit(() -> {
                    go.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < 400; i++) {
                        long before = clock.millis();
                        List<String> got = i % 4 == 0 ? node.next(rule.name(), 3) : List.of(node.next(rule.name()));
                        calls.add(new Got(before, clock.millis(), got));
                        if (done.incrementAndGet() == 1_600) {
                            clock.set(midnight); // half way through, under load
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> all = calls.stream().flatMap(c -> c.serials().stream()).toList();
        assertThat(all).doesNotHaveDuplicates();
        for (Got c : calls) {
            String printed = c.serials().get(0).substring(3, 11);
            assertThat(printed).as("date of %s", c.serials())
                    .isIn(day(c.clockBefore()), day(c.clockAfter()));
            if (c.clockBefore() >= midnight) {
                assertThat(printed).as("a call begun after midnight").isEqualTo(day(midnight));
            }
        }
        for (String date : List.of(day(midnight - 1), day(midnight))) {
            List<Long> numbers = all.stream().filter(s -> s.startsWith("ORD" + date))
                    .map(s -> SerialRedisHarness.number(rule, s)).sorted().toList();
            assertThat(numbers).as("numbers of %s", date).isNotEmpty();
            assertThat(numbers.get(numbers.size() - 1)).as("%s counts 1..n without a gap", date)
                    .isEqualTo(numbers.size());
        }
    }
}

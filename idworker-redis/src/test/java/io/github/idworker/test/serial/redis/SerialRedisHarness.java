package io.github.idworker.test.serial.redis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.serial.redis.RedisSerialOptions;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Independent clients of strict serials over one Redis and one database, as separate nodes would be: each has
 * its own Redis connection, its own {@link JdbcSerialStore} and rule lookup, its own {@link RedisSerialNumbers}.
 * Every Redis key a client touches is recorded, so {@link #close()} leaves nothing behind; every rule made here
 * is deleted from the tables.
 */
final class SerialRedisHarness implements AutoCloseable {

    static final String PREFIX = "idworker-test";

    final HikariDataSource dataSource;
    private final HikariConfig config;
    private final Supplier<UnifiedJedis> newClient;
    private UnifiedJedis admin;
    private final List<UnifiedJedis> clients = new ArrayList<>();
    private final List<RedisSerialNumbers> serials = new ArrayList<>();
    private final Set<String> touchedKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> rules = ConcurrentHashMap.newKeySet();
    /**
     * Round trips to Redis made by the thread that last called {@link #resetRoundTrips()}, since then: what a call
     * costs its caller. Refills run on other threads and may still be finishing the previous call's work (on a
     * loaded machine the unlock of the first refill landed after the reset), so they are not counted.
     */
    final AtomicInteger roundTrips = new AtomicInteger();
    private volatile Thread countedThread;

    SerialRedisHarness(String jdbcUrl, String user, String password, Supplier<UnifiedJedis> newClient) {
        this(jdbcUrl, user, password, newClient, pool -> { });
    }

    SerialRedisHarness(String jdbcUrl, String user, String password, Supplier<UnifiedJedis> newClient,
                       Consumer<HikariConfig> pool) {
        this.config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(12);
        config.setMinimumIdle(1);
        pool.accept(config);
        this.dataSource = new HikariDataSource(config);
        this.newClient = newClient;
        this.admin = newClient.get();
        JdbcSerialStore store = newStore();
        store.createSchemaIfMissing();
        store.verifySchema();
    }

    /** A pool of its own over the same database, for a node that loses its database; the caller closes it. */
    HikariDataSource newPool() {
        HikariConfig own = new HikariConfig();
        config.copyStateTo(own);
        own.setPoolName(null);
        own.setConnectionTimeout(250);
        return new HikariDataSource(own);
    }

    JdbcSerialStore newStore() {
        return new JdbcSerialStore(dataSource);
    }

    /** A rule with a random name, registered in the table, deleted again by {@link #close()}. */
    SerialRule newRule(Consumer<SerialRule.Builder> settings) {
        String name = "s-" + UUID.randomUUID().toString().substring(0, 13);
        SerialRule.Builder b = SerialRule.builder(name);
        settings.accept(b);
        SerialRule rule = b.build();
        rules.add(name);
        return newStore().register(rule);
    }

    /** A new node: its own Redis connection, store, rule lookup and serials. */
    RedisSerialNumbers newNode(RedisSerialOptions options) {
        UnifiedJedis jedis = newClient.get();
        clients.add(jedis);
        return newNode(new JedisScriptExecutor(jedis), options);
    }

    /** A new node over {@code executor}, whose keys and round trips are recorded. */
    RedisSerialNumbers newNode(RedisScriptExecutor executor, RedisSerialOptions options) {
        return newNode(executor, newStore(), options);
    }

    /** A new node with its own Redis connection over {@code store}. */
    RedisSerialNumbers newNode(JdbcSerialStore store, RedisSerialOptions options) {
        UnifiedJedis jedis = newClient.get();
        clients.add(jedis);
        return newNode(new JedisScriptExecutor(jedis), store, options);
    }

    /** A new node whose rule lookup reads the rules again after {@code refresh}. */
    RedisSerialNumbers newNode(RedisSerialOptions options, Duration refresh) {
        UnifiedJedis jedis = newClient.get();
        clients.add(jedis);
        JdbcSerialStore store = newStore();
        return track(new JedisScriptExecutor(jedis), store, new SerialRules(store, refresh), options);
    }

    /** Sets a column of a rule's row, as an operator tuning the rule in the table. */
    void setRuleColumn(String rule, String column, long value) {
        try (java.sql.Connection c = dataSource.getConnection();
             java.sql.PreparedStatement ps = c.prepareStatement("UPDATE " + JdbcSerialStore.DEFAULT_TABLE + " SET "
                     + column + " = ? WHERE rule_name = ?")) {
            ps.setLong(1, value);
            ps.setString(2, rule);
            ps.executeUpdate();
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private RedisSerialNumbers newNode(RedisScriptExecutor executor, JdbcSerialStore store, RedisSerialOptions options) {
        return track(executor, store, new SerialRules(store, Duration.ofSeconds(30), "test table"), options);
    }

    private RedisSerialNumbers track(RedisScriptExecutor executor, JdbcSerialStore store, SerialRules lookup,
                                     RedisSerialOptions options) {
        RedisScriptExecutor recording = new RedisScriptExecutor() {
            @Override
            public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
                record(keys);
                return executor.execute(script, keys, args);
            }

            // recorded here, on the caller's thread, before the executor may hand the call to a pooled thread
            @Override
            public List<Object> execute(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                                        Supplier<? extends RuntimeException> onTimeout) {
                record(keys);
                return executor.execute(script, keys, args, deadlineNanos, onTimeout);
            }
        };
        RedisSerialNumbers node = new RedisSerialNumbers(recording, store, lookup, options);
        serials.add(node);
        return node;
    }

    static RedisSerialOptions.Builder options() {
        return RedisSerialOptions.builder().keyPrefix(PREFIX);
    }

    UnifiedJedis admin() {
        return admin;
    }

    /** Opens the inspecting connection anew, after a test restarted Redis under it. */
    void reconnectAdmin() {
        admin.close();
        admin = newClient.get();
    }

    /** The stock hash of (rule, period). */
    static String stockKey(String rule, String period) {
        return "{" + PREFIX + ":serial:" + rule + "}:" + period;
    }

    /** The number at the end of a serial string of {@code rule}. */
    static long number(SerialRule rule, String serial) {
        return Long.parseLong(serial.substring(serial.length() - rule.width()));
    }

    /** How many numbers the demand buckets of {@code rule} hold in all. */
    long demandCounted(String rule) {
        long sum = 0;
        for (String key : touchedKeys) {
            if (key.startsWith("{" + PREFIX + ":serial:" + rule + "}:use:")) {
                String v = admin.get(key);
                sum += v == null ? 0 : Long.parseLong(v);
            }
        }
        return sum;
    }

    private void record(List<String> keys) {
        touchedKeys.addAll(keys);
        if (Thread.currentThread() == countedThread) {
            roundTrips.incrementAndGet();
        }
    }

    /** Counts {@link #roundTrips} of the calling thread from now on. */
    void resetRoundTrips() {
        countedThread = Thread.currentThread();
        roundTrips.set(0);
    }

    @Override
    public void close() {
        serials.forEach(RedisSerialNumbers::close);
        for (String key : touchedKeys) {
            admin.del(key);
        }
        JdbcSerialStore store = newStore();
        rules.forEach(store::deleteRule);
        clients.forEach(UnifiedJedis::close);
        admin.close();
        dataSource.close();
    }
}

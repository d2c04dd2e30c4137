package io.github.idworker.test.pool.redis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.RedisScriptExecutor;
import redis.clients.jedis.UnifiedJedis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Independent nodes of the ID pools over one Redis and one database, as separate processes would be: each node
 * has its own Redis connection, its own {@link JdbcPoolStore} and its own {@link RedisIdPools}. Every Redis key a
 * node touches is recorded, so {@link #close()} leaves nothing behind; every entity made here is deleted from the
 * table.
 */
final class PoolRedisHarness implements AutoCloseable {

    static final String PREFIX = "idworker-test";

    final HikariDataSource dataSource;
    private final Supplier<UnifiedJedis> newClient;
    private UnifiedJedis admin;
    private final List<UnifiedJedis> clients = new ArrayList<>();
    private final List<RedisIdPools> nodes = new ArrayList<>();
    private final Set<String> touchedKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> entities = ConcurrentHashMap.newKeySet();

    PoolRedisHarness(String jdbcUrl, String user, String password, Supplier<UnifiedJedis> newClient) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(1);
        this.dataSource = new HikariDataSource(config);
        this.newClient = newClient;
        this.admin = newClient.get();
        JdbcPoolStore store = newStore();
        store.createSchemaIfMissing();
        store.verifySchema();
    }

    JdbcPoolStore newStore() {
        return new JdbcPoolStore(dataSource);
    }

    /** An entity with a random key; registered by the first node it is given to, deleted by {@link #close()}. */
    PoolEntity entity(Consumer<PoolEntity.Builder> settings) {
        return entity(settings, "p-" + UUID.randomUUID().toString().substring(0, 13));
    }

    /** An entity of the given key; registered by the first node it is given to, deleted by {@link #close()}. */
    PoolEntity entity(Consumer<PoolEntity.Builder> settings, String key) {
        PoolEntity.Builder b = PoolEntity.builder(key);
        settings.accept(b);
        entities.add(key);
        return b.build();
    }

    static RedisPoolOptions.Builder options() {
        return RedisPoolOptions.builder().keyPrefix(PREFIX);
    }

    /** A new node: its own Redis connection and store. */
    RedisIdPools newNode(RedisPoolOptions options) {
        return newNode(options, UnaryOperator.identity());
    }

    /** A new node whose script calls pass through {@code wrap} (to stall or count them). */
    RedisIdPools newNode(RedisPoolOptions options, UnaryOperator<RedisScriptExecutor> wrap) {
        UnifiedJedis jedis = newClient.get();
        synchronized (clients) {
            clients.add(jedis);
        }
        RedisScriptExecutor direct = new JedisScriptExecutor(jedis);
        RedisScriptExecutor recording = (script, keys, args) -> {
            touchedKeys.addAll(keys);
            return direct.execute(script, keys, args);
        };
        RedisIdPools node = new RedisIdPools(wrap.apply(recording), newStore(), options);
        synchronized (nodes) {
            nodes.add(node);
        }
        return node;
    }

    RedisIdPools newNode() {
        return newNode(options().build());
    }

    UnifiedJedis admin() {
        return admin;
    }

    /** Opens the inspecting connection anew, after a test restarted Redis under it. */
    void reconnectAdmin() {
        admin.close();
        admin = newClient.get();
    }

    static String listKey(String entity) {
        return "{" + PREFIX + ":pool:" + entity + "}:ids";
    }

    static String metaKey(String entity) {
        return "{" + PREFIX + ":pool:" + entity + "}:meta";
    }

    long level(String entity) {
        return admin.llen(listKey(entity));
    }

    /** Sets a column of an entity's row, as an operator tuning the pool in the table. */
    void setColumn(String entity, String column, long value) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + JdbcPoolStore.DEFAULT_TABLE + " SET " + column
                     + " = ? WHERE entity_key = ?")) {
            ps.setLong(1, value);
            ps.setString(2, entity);
            ps.executeUpdate();
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The entity's {@code current_offset} as the table holds it. */
    long currentOffset(String entity) {
        return newStore().find(entity).orElseThrow().currentOffset();
    }

    @Override
    public void close() {
        synchronized (nodes) {
            nodes.forEach(RedisIdPools::close);
        }
        try {
            for (String key : touchedKeys) {
                admin.del(key);
            }
            for (String entity : entities) {
                for (String suffix : List.of("ids", "meta", "rate", "lock")) {
                    admin.del("{" + PREFIX + ":pool:" + entity + "}:" + suffix);
                }
            }
        } finally {
            JdbcPoolStore store = newStore();
            entities.forEach(store::deleteEntity);
            synchronized (clients) {
                clients.forEach(UnifiedJedis::close);
            }
            admin.close();
            dataSource.close();
        }
    }
}

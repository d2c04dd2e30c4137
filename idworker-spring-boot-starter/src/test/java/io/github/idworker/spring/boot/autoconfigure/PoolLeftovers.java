package io.github.idworker.spring.boot.autoconfigure;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The ID pool entities one test used, and their removal afterwards: the rows of the pool table and every Redis
 * key under each entity's hash tag, so no test leaves anything behind for the next (or for the real services).
 */
final class PoolLeftovers {

    private final List<String> keys = new ArrayList<>();

    /** A fresh entity key, removed by {@link #remove}. */
    String entity() {
        String key = "p-" + UUID.randomUUID().toString().substring(0, 12);
        keys.add(key);
        return key;
    }

    List<String> keys() {
        return keys;
    }

    /** The Redis list of {@code entity} under key prefix {@code prefix}. */
    static String listKey(String prefix, String entity) {
        return "{" + prefix + ":pool:" + entity + "}:ids";
    }

    /**
     * Deletes the entities' rows from {@code table} (when the table exists) and their keys under {@code prefix};
     * run after the contexts closed, so no refill writes them again.
     */
    void remove(String url, String user, String password, String table, String redisHost, int redisPort,
                String prefix) {
        if (keys.isEmpty()) {
            return;
        }
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            if (tableExists(c, table)) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE entity_key = ?")) {
                    for (String key : keys) {
                        ps.setString(1, key);
                        ps.executeUpdate();
                    }
                }
            }
        } catch (SQLException e) {
            throw new AssertionError("could not delete the test's pool rows from " + table, e);
        }
        try (Jedis jedis = new Jedis(redisHost, redisPort)) {
            for (String key : keys) {
                deleteMatching(jedis, "{" + prefix + ":pool:" + key + "}*");
            }
        }
    }

    private static void deleteMatching(Jedis jedis, String pattern) {
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(pattern).count(1000));
            if (!page.getResult().isEmpty()) {
                jedis.del(page.getResult().toArray(String[]::new));
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }

    private static boolean tableExists(Connection c, String table) throws SQLException {
        for (String name : List.of(table, table.toUpperCase(), table.toLowerCase())) {
            try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, name, null)) {
                if (rs.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Every entity key of {@code keys} still in {@code table}; for tests that expect none. */
    static List<String> rows(Connection c, String table, Collection<String> keys) throws SQLException {
        List<String> found = new ArrayList<>();
        if (!tableExists(c, table)) {
            return found;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT entity_key FROM " + table + " WHERE entity_key = ?")) {
            for (String key : keys) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        found.add(rs.getString(1));
                    }
                }
            }
        }
        return found;
    }
}

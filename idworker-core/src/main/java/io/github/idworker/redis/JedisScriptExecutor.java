package io.github.idworker.redis;

import io.github.idworker.CenterUnavailableException;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Runs idworker's Lua scripts through Jedis 7. Any {@link UnifiedJedis} works: {@code RedisClient} and
 * {@code JedisPooled} for one server, {@code RedisClusterClient} and {@code JedisCluster} for a cluster, where
 * Jedis routes each call by its first key (all keys of a call share one hash tag).
 *
 * <p>Steps of one call:
 * <ol>
 *   <li>{@code EVALSHA} with the script's SHA-1;</li>
 *   <li>on {@code NOSCRIPT} (script cache flushed, server restarted, another cluster node) {@code EVAL} with the
 *       source, which also caches it for the next {@code EVALSHA};</li>
 *   <li>a failure to reach Redis becomes a {@link CenterUnavailableException} naming the endpoint when known;
 *       any other Jedis error too, naming the script.</li>
 * </ol>
 * Thread-safe as far as the client is; the client stays owned by the caller, who closes it.
 */
public class JedisScriptExecutor implements RedisScriptExecutor {

    private final UnifiedJedis jedis;
    private final String endpoint;

    /** @param jedis a pooled or cluster client, owned and closed by the caller */
    public JedisScriptExecutor(UnifiedJedis jedis) {
        this(jedis, null);
    }

    /**
     * @param jedis a pooled or cluster client, owned and closed by the caller
     * @param endpoint how to name the server in errors, e.g. {@code redis.example.com:6379}; {@code null} to name
     *        the cluster nodes Jedis knows, or nothing for a single server
     */
    public JedisScriptExecutor(UnifiedJedis jedis, String endpoint) {
        this.jedis = Objects.requireNonNull(jedis, "jedis");
        this.endpoint = endpoint;
    }

    @Override
    public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
        Object reply;
        try {
            try {
                reply = jedis.evalsha(script.sha1(), keys, args);
            } catch (JedisNoScriptException e) {
                reply = jedis.eval(script.source(), keys, args);
            } catch (JedisDataException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) {
                    throw e;
                }
                reply = jedis.eval(script.source(), keys, args);
            }
        } catch (JedisConnectionException | JedisClusterOperationException e) {
            throw new CenterUnavailableException("Cannot reach Redis" + where() + " to run " + script.name()
                    + " (keys " + keys + "): " + e.getMessage() + ". Check spring.data.redis.* or the client's "
                    + "host and port, and that Redis is up.", e);
        } catch (JedisException e) {
            throw new CenterUnavailableException("Redis" + where() + " failed running " + script.name()
                    + " (keys " + keys + "): " + e.getMessage(), e);
        }
        return asList(reply);
    }

    private String where() {
        if (endpoint != null) {
            return " at " + endpoint;
        }
        try {
            if (jedis instanceof RedisClusterClient cluster) {
                return " cluster " + cluster.getClusterNodes().keySet();
            }
            if (jedis instanceof JedisCluster cluster) {
                return " cluster " + cluster.getClusterNodes().keySet();
            }
        } catch (RuntimeException ignored) {
            // the node list is only decoration for the message
        }
        return "";
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object reply) {
        if (reply instanceof List<?> list) {
            return (List<Object>) list;
        }
        if (reply == null) {
            return new ArrayList<>();
        }
        List<Object> one = new ArrayList<>(1);
        one.add(reply);
        return one;
    }

    @Override
    public String toString() {
        return "JedisScriptExecutor[" + (endpoint != null ? endpoint : jedis.getClass().getSimpleName()) + "]";
    }
}

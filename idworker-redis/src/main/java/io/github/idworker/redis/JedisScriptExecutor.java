package io.github.idworker.redis;

import io.github.idworker.CenterUnavailableException;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

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
 *
 * <p>A call with a deadline ({@link #execute(LuaScript, List, List, long, Supplier)}, the issuing paths) ends by
 * that deadline. Jedis blocks its calling thread, so the executor must know how long one Redis command through
 * this client can block it at most, {@code maxCallTime}, which only the application that configured the client
 * knows. Steps of such a call:
 * <ol>
 *   <li>{@code maxCallTime} unknown (the constructors without it), or longer than the time left: the whole call
 *       (steps 1–3 above) runs on a pooled thread and its caller stops waiting at the deadline
 *       ({@link BoundedCalls}: one thread hand-off);</li>
 *   <li>otherwise {@code EVALSHA} runs on the caller's own thread: it ends within {@code maxCallTime}, so before
 *       the deadline, with its reply or the client's own error (a {@link CenterUnavailableException});</li>
 *   <li>on {@code NOSCRIPT} the same choice again for {@code EVAL} with the time then left.</li>
 * </ol>
 * {@code maxCallTime} must cover everything one command may block for (Jedis 7 with commons-pool2 2.13):
 * <ul>
 *   <li>the pool's borrow wait ({@code maxWait} of its {@code ConnectionPoolConfig}; unlimited unless set, and
 *       then there is no bound);</li>
 *   <li>a new connection: the connection timeout, then one socket timeout per handshake round trip
 *       ({@code CLIENT SETINFO}, plus {@code HELLO}/{@code AUTH} and {@code SELECT} when configured);</li>
 *   <li>one socket timeout for the command itself;</li>
 *   <li>after a broken connection (e.g. that socket timeout) the pool opens its replacement on the same thread
 *       before the error comes back: a new connection's time once more.</li>
 * </ul>
 * For a {@code RedisClient} or {@code JedisPooled} with borrow wait {@code w}, connection timeout {@code c} and
 * socket timeout {@code s}, without password or database: {@code w + 2(c + s) + s}. A cluster client retries a
 * failed command up to {@code maxAttempts} times and renews its slot map from the nodes in between, each within
 * those timeouts: declare no bound for it unless you have measured one. A bound that is too short lets a call
 * outlast its {@code max-wait}; one that is too long only costs the hand-off.
 */
public class JedisScriptExecutor implements RedisScriptExecutor {

    private final UnifiedJedis jedis;
    private final @Nullable String endpoint;
    /** Longest one command may block the calling thread; negative when unknown. */
    private final long maxCallNanos;

    /** @param jedis a pooled or cluster client, owned and closed by the caller */
    public JedisScriptExecutor(UnifiedJedis jedis) {
        this(jedis, null, null);
    }

    /**
     * @param jedis a pooled or cluster client, owned and closed by the caller
     * @param endpoint how to name the server in errors, e.g. {@code redis.example.com:6379}; {@code null} to name
     *        the cluster nodes Jedis knows, or nothing for a single server
     */
    public JedisScriptExecutor(UnifiedJedis jedis, @Nullable String endpoint) {
        this(jedis, endpoint, null);
    }

    /**
     * @param jedis a pooled or cluster client, owned and closed by the caller
     * @param maxCallTime the longest one Redis command through {@code jedis} can block its thread (see the class
     *        comment); {@code null} when unknown, so that every call with a deadline is handed to a pooled thread
     */
    public JedisScriptExecutor(UnifiedJedis jedis, @Nullable Duration maxCallTime) {
        this(jedis, null, maxCallTime);
    }

    /**
     * @param jedis a pooled or cluster client, owned and closed by the caller
     * @param endpoint how to name the server in errors; {@code null} for the cluster nodes, or nothing
     * @param maxCallTime the longest one Redis command through {@code jedis} can block its thread (see the class
     *        comment); {@code null} when unknown, so that every call with a deadline is handed to a pooled thread
     */
    public JedisScriptExecutor(UnifiedJedis jedis, @Nullable String endpoint, @Nullable Duration maxCallTime) {
        this.jedis = Objects.requireNonNull(jedis, "jedis");
        this.endpoint = endpoint;
        if (maxCallTime != null && (maxCallTime.isNegative() || maxCallTime.isZero())) {
            throw new IllegalArgumentException("maxCallTime must be positive (the longest one Redis command can "
                    + "block), or null when unknown; was " + maxCallTime);
        }
        this.maxCallNanos = maxCallTime == null ? -1 : saturatedNanos(maxCallTime);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The declared longest blocking time of one command, if any. */
    public Optional<Duration> maxCallTime() {
        return maxCallNanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(maxCallNanos));
    }

    @Override
    public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
        return run(script, keys, args, 0, null);
    }

    /** Runs on the caller's thread what fits in the time left; see the class comment. */
    @Override
    public List<Object> execute(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                                Supplier<? extends RuntimeException> onTimeout) {
        if (!fits(deadlineNanos)) {
            return RedisScriptExecutor.super.execute(script, keys, args, deadlineNanos, onTimeout);
        }
        return run(script, keys, args, deadlineNanos, onTimeout);
    }

    /** Whether one command started now ends before {@code deadlineNanos}. */
    private boolean fits(long deadlineNanos) {
        return maxCallNanos >= 0 && deadlineNanos - System.nanoTime() > maxCallNanos;
    }

    /**
     * Steps 1–3; with an {@code onTimeout} (a deadline), the {@code EVAL} after {@code NOSCRIPT} runs here only
     * when it still fits, else on a pooled thread until the deadline.
     */
    private List<Object> run(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                             @Nullable Supplier<? extends RuntimeException> onTimeout) {
        Object reply;
        try {
            try {
                reply = jedis.evalsha(script.sha1(), keys, args);
            } catch (JedisNoScriptException e) {
                reply = load(script, keys, args, deadlineNanos, onTimeout);
            } catch (JedisDataException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) {
                    throw e;
                }
                reply = load(script, keys, args, deadlineNanos, onTimeout);
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

    /** {@code EVAL} with the source, which also caches the script for the next {@code EVALSHA}. */
    private Object load(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                        @Nullable Supplier<? extends RuntimeException> onTimeout) {
        if (onTimeout == null || fits(deadlineNanos)) {
            return jedis.eval(script.source(), keys, args);
        }
        return BoundedCalls.call(() -> jedis.eval(script.source(), keys, args), deadlineNanos, onTimeout);
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
        // one object for the bare integer of the hottest scripts (segment-next), not a list and its array
        return reply == null ? List.of() : Collections.singletonList(reply);
    }

    /**
     * True when {@code other} is a {@code JedisScriptExecutor} over the same client and that client talks to one
     * server: a {@link RedisClient} or {@link JedisPooled} (one host), a {@link RedisSentinelClient} or
     * {@link JedisSentineled} (the master). A cluster client, or any other {@link UnifiedJedis}, answers false.
     */
    @Override
    public boolean sharesOneServerWith(RedisScriptExecutor other) {
        return other instanceof JedisScriptExecutor o && o.jedis == jedis
                && (jedis instanceof RedisClient || jedis instanceof JedisPooled
                        || jedis instanceof RedisSentinelClient || jedis instanceof JedisSentineled);
    }

    @Override
    public String toString() {
        return "JedisScriptExecutor[" + (endpoint != null ? endpoint : jedis.getClass().getSimpleName()) + "]";
    }
}

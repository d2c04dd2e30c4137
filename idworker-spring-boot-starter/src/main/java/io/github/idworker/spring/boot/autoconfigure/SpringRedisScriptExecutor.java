package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Runs idworker's Lua scripts through spring-data-redis over the application's {@link RedisConnectionFactory}
 * (Jedis or Lettuce); it opens no connection pool of its own.
 *
 * <p>Steps of one call:
 * <ol>
 *   <li>{@link StringRedisTemplate#execute(RedisScript, List, Object...)} with a {@link DefaultRedisScript} kept
 *       per script: spring-data-redis sends {@code EVALSHA} and falls back to {@code EVAL} on {@code NOSCRIPT};
 *       on Redis Cluster the call is routed by its first key (all keys of a call share one hash tag);</li>
 *   <li>bulk strings come back as {@link String}, integers as {@link Long}, arrays as lists; a script that
 *       answers a bare integer or string (the segment lock scripts do) gets a one-element list, {@code nil} an
 *       empty one, with either client;</li>
 *   <li>a {@link DataAccessException} (Redis unreachable, timed out, or failed running the script) becomes a
 *       {@link CenterUnavailableException} naming the Redis endpoint (host:port, the cluster nodes, or the
 *       sentinels and master).</li>
 * </ol>
 *
 * <p>A call with a deadline ({@link #execute(LuaScript, List, List, long, Supplier)}: the paths that issue) ends
 * by that deadline, whatever the client's timeouts and retries, and spares the thread hand-off of the SPI's default
 * where the client allows:
 * <ul>
 *   <li><b>Lettuce</b> ({@link LettuceConnectionFactory} sharing its native connection, the default): Lettuce's
 *       asynchronous API on that connection, the caller waiting on the returned future for the time left; no
 *       hand-off, standalone, Sentinel and cluster alike ({@link LettuceScriptCalls} lists the steps);</li>
 *   <li><b>Jedis</b> ({@link JedisConnectionFactory}): steps 1–3 on the caller's thread when the longest time a
 *       call can block, derived from the factory's read and connect timeouts and pool settings
 *       ({@link JedisCallBound}), is shorter than the time left; the client's own timeout then ends it first;</li>
 *   <li>otherwise (Lettuce with dedicated connections, Jedis without a bound — e.g. a pool that waits without a
 *       limit, Redis Cluster, Sentinel — or another factory) steps 1–3 on a pooled thread, the caller waiting until
 *       the deadline ({@link io.github.idworker.redis.BoundedCalls}).</li>
 * </ul>
 */
public class SpringRedisScriptExecutor implements RedisScriptExecutor {

    private static final String LETTUCE_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";
    private static final String JEDIS_FACTORY = "org.springframework.data.redis.connection.jedis.JedisConnectionFactory";

    private final RedisConnectionFactory connectionFactory;
    private final StringRedisTemplate template;
    private final Map<String, RedisScript<?>> scripts = new ConcurrentHashMap<>();
    private final Class<?> resultType;
    /** Lettuce's asynchronous calls, or {@code null}. */
    private final @Nullable LettuceScriptCalls lettuce;
    /** The longest a Jedis call blocks, or -1 when unknown or not Jedis. */
    private final long maxCallNanos;
    /** A Lettuce or Jedis factory of one server, not a cluster: see {@link #sharesOneServerWith}. */
    private final boolean oneServer;

    public SpringRedisScriptExecutor(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        this.template = new StringRedisTemplate(connectionFactory);
        // by class name, so that the client not on the classpath is never loaded
        boolean isLettuce = extendsClass(connectionFactory.getClass(), LETTUCE_FACTORY);
        this.resultType = isLettuce ? List.class : Object.class;
        this.lettuce = isLettuce ? LettuceScriptCalls.of(connectionFactory) : null;
        boolean isJedis = extendsClass(connectionFactory.getClass(), JEDIS_FACTORY);
        this.maxCallNanos = isJedis ? JedisCallBound.maxCallNanos(connectionFactory) : -1;
        this.oneServer = (isLettuce || isJedis) && invoke("getClusterConfiguration") == null;
    }

    private static boolean extendsClass(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** How calls with a deadline run: {@code "lettuce-async"}, {@code "inline"} or {@code "pooled-thread"}. */
    String deadlineMode() {
        if (this.lettuce != null) {
            return "lettuce-async";
        }
        return this.maxCallNanos >= 0 ? "inline" : "pooled-thread";
    }

    @Override
    public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
        RedisScript<?> redisScript = this.scripts.computeIfAbsent(script.sha1(),
                sha -> new DefaultRedisScript<>(script.source(), this.resultType));
        Object reply;
        try {
            reply = this.template.execute(redisScript, keys, args.toArray());
        } catch (RuntimeException e) {
            throw failed(script, keys, e);
        }
        return asList(reply);
    }

    /** Ends by {@code deadlineNanos}: Lettuce's future, Jedis on this thread, or a pooled thread (class comment). */
    @Override
    public List<Object> execute(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                                Supplier<? extends RuntimeException> onTimeout) {
        if (this.lettuce != null) {
            Object reply;
            try {
                reply = this.lettuce.execute(script, keys, args, deadlineNanos, onTimeout);
            } catch (LettuceScriptCalls.Failed e) {
                throw failed(script, keys, e.getCause());
            }
            return asList(reply);
        }
        if (this.maxCallNanos >= 0 && deadlineNanos - System.nanoTime() > this.maxCallNanos) {
            // the client's own timeouts end the call before the deadline
            return execute(script, keys, args);
        }
        return RedisScriptExecutor.super.execute(script, keys, args, deadlineNanos, onTimeout);
    }

    /**
     * True when {@code other} is a {@code SpringRedisScriptExecutor} over the same connection factory and that
     * factory is a Lettuce or Jedis one without a cluster configuration: standalone, Sentinel (scripts run on the
     * master) or static master/replica. Redis Cluster, or another factory, answers false.
     */
    @Override
    public boolean sharesOneServerWith(RedisScriptExecutor other) {
        return this.oneServer && other instanceof SpringRedisScriptExecutor o
                && o.connectionFactory == this.connectionFactory;
    }

    /** A failure of spring-data-redis (or of Lettuce, translated) as a {@link CenterUnavailableException}. */
    private RuntimeException failed(LuaScript script, List<String> keys, RuntimeException failure) {
        if (failure instanceof RedisConnectionFailureException e) {
            return new CenterUnavailableException("Cannot reach Redis at " + endpoint() + " to run " + script.name()
                    + " (keys " + keys + "): " + sentence(e.getMessage())
                    + " Check that Redis is up and that spring.data.redis.* point at it.", e);
        }
        if (failure instanceof DataAccessException e) {
            return new CenterUnavailableException("Redis at " + endpoint() + " failed running " + script.name()
                    + " (keys " + keys + "): " + e.getMessage(), e);
        }
        if (failure instanceof IllegalStateException e) {
            // e.g. "JedisConnectionFactory has been STOPPED": the context is shutting down
            return new CenterUnavailableException("Redis connection to " + endpoint() + " is not available to run "
                    + script.name() + ": " + e.getMessage(), e);
        }
        return failure;
    }

    /**
     * The reply as a list. Lettuce decodes by the output type asked for, so it is asked for a list, which takes
     * every shape: a bare integer or string arrives as a one-element list, {@code nil} as {@code [null]}. Jedis
     * casts to the type asked for, so it is asked for any object and a scalar is wrapped here.
     */
    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object reply) {
        if (reply instanceof List<?> list) {
            return (list.size() == 1 && list.get(0) == null) ? new ArrayList<>() : (List<Object>) list;
        }
        List<Object> one = new ArrayList<>(1);
        if (reply != null) {
            one.add(reply);
        }
        return one;
    }

    private static String sentence(@Nullable String message) {
        String text = (message != null) ? message.strip() : "no detail";
        return text.endsWith(".") ? text : text + ".";
    }

    /**
     * The Redis endpoint the connection factory talks to: the cluster nodes, the sentinels and master name, or
     * {@code host:port}. Read through the getters the Jedis and Lettuce factories share, so neither client's
     * classes are needed here.
     */
    public String endpoint() {
        Object cluster = invoke("getClusterConfiguration");
        if (cluster instanceof RedisClusterConfiguration c) {
            return "cluster " + c.getClusterNodes().stream().map(Object::toString).collect(Collectors.joining(", ", "[", "]"));
        }
        Object sentinel = invoke("getSentinelConfiguration");
        if (sentinel instanceof RedisSentinelConfiguration s) {
            return "sentinels " + s.getSentinels().stream().map(Object::toString).collect(Collectors.joining(", ", "[", "]"))
                    + " (master " + (s.getMaster() != null ? s.getMaster().getName() : "?") + ")";
        }
        Object host = invoke("getHostName");
        Object port = invoke("getPort");
        if (host != null && port != null) {
            return host + ":" + port;
        }
        return this.connectionFactory.getClass().getSimpleName();
    }

    private @Nullable Object invoke(String getter) {
        Method method = ReflectionUtils.findMethod(this.connectionFactory.getClass(), getter);
        if (method == null || method.getParameterCount() != 0) {
            return null;
        }
        try {
            return ReflectionUtils.invokeMethod(method, this.connectionFactory);
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "SpringRedisScriptExecutor[" + endpoint() + "]";
    }
}

package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.LuaScript;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The calls of a {@link SpringRedisScriptExecutor} over Lettuce that have a deadline: sent through Lettuce's
 * asynchronous API on the factory's shared native connection, their caller waiting on Lettuce's own future for the
 * time left, on its own thread. A Lettuce synchronous call waits on such a future too, so this costs no thread
 * hand-off.
 *
 * <p>Steps of one call:
 * <ol>
 *   <li>The shared connection's asynchronous commands, kept from an earlier call while that connection is open.
 *       Otherwise they are taken from the factory on a pooled thread until the deadline ({@link BoundedCalls}):
 *       the factory connects, validates and may reset its connection synchronously, up to Lettuce's connect
 *       timeout. That happens on the first call and after the factory replaced its connection; a connection that
 *       arrives after its caller gave up is kept for the next call.</li>
 *   <li>{@code EVALSHA} asking for a list ({@link ScriptOutputType#MULTI}), which takes every reply shape; on a
 *       cluster Lettuce routes it by its first key. The caller waits on its future until the deadline.</li>
 *   <li>On {@code NOSCRIPT}: {@code EVAL} with the source (which caches it for the next {@code EVALSHA}), waited
 *       for until the same deadline.</li>
 *   <li>At the deadline the future is cancelled and the caller gets the timeout exception; a script Redis runs
 *       after that leaves a gap. A failure of Lettuce (connection, its own command timeout, a script error) goes
 *       through the factory's exception translation, then as {@link SpringRedisScriptExecutor} maps it.</li>
 * </ol>
 * Bulk strings are decoded as UTF-8 strings, nested replies as lists, as {@code StringRedisTemplate} does.
 * Loaded only when the factory is a {@link LettuceConnectionFactory}, so Lettuce's classes stay optional.
 */
final class LettuceScriptCalls {

    private final LettuceConnectionFactory factory;

    /** The shared connection and its asynchronous commands, as one pair. */
    private record Shared(@Nullable StatefulConnection<byte[], byte[]> connection,
                          RedisClusterAsyncCommands<byte[], byte[]> commands) {
    }

    private volatile @Nullable Shared shared;

    private LettuceScriptCalls(LettuceConnectionFactory factory) {
        this.factory = factory;
    }

    /**
     * The deadline-aware calls of {@code factory}, or {@code null} when it hands out a dedicated connection per
     * use ({@code shareNativeConnection=false}): taking one blocks, so such calls keep the pooled thread.
     */
    static @Nullable LettuceScriptCalls of(Object factory) {
        if (factory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()) {
            return new LettuceScriptCalls(lettuce);
        }
        return null;
    }

    /**
     * Steps 1–4.
     *
     * @throws RuntimeException {@code onTimeout}'s at the deadline; Lettuce's failures translated by the factory
     *         and wrapped in {@link Failed}
     */
    Object execute(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                   Supplier<? extends RuntimeException> onTimeout) {
        if (System.nanoTime() - deadlineNanos >= 0) {
            throw onTimeout.get();
        }
        RedisClusterAsyncCommands<byte[], byte[]> commands = commands(deadlineNanos, onTimeout);
        byte[][] keyBytes = bytes(keys);
        byte[][] argBytes = bytes(args);
        try {
            try {
                return decode(await(commands.evalsha(script.sha1(), ScriptOutputType.MULTI, keyBytes, argBytes),
                        deadlineNanos, onTimeout));
            } catch (ExecutionException e) {
                if (!isNoScript(e.getCause())) {
                    throw e;
                }
            }
            return decode(await(commands.eval(script.source(), ScriptOutputType.MULTI, keyBytes, argBytes),
                    deadlineNanos, onTimeout));
        } catch (ExecutionException e) {
            throw new Failed(translate(e.getCause()));
        }
    }

    /** A failure of Lettuce, translated; {@link SpringRedisScriptExecutor} maps its cause like the template's. */
    static final class Failed extends RuntimeException {
        Failed(RuntimeException cause) {
            super(cause);
        }

        @Override
        public synchronized RuntimeException getCause() {
            // the one constructor sets the cause
            return (RuntimeException) Objects.requireNonNull(super.getCause());
        }
    }

    private RedisClusterAsyncCommands<byte[], byte[]> commands(long deadlineNanos,
                                                              Supplier<? extends RuntimeException> onTimeout) {
        Shared current = shared;
        // keep() stores only a pair that has a connection
        if (current != null && Objects.requireNonNull(current.connection).isOpen()) {
            return current.commands;
        }
        // the factory may connect here (Lettuce's connect timeout, 10 s by default): bounded by the deadline; a
        // connection that arrives after the caller gave up is kept for the next call
        Shared fresh = BoundedCalls.call(this::fromFactory, deadlineNanos, onTimeout, this::keep);
        keep(fresh);
        return fresh.commands;
    }

    private void keep(Shared fresh) {
        if (fresh.connection != null) {
            shared = fresh;
        }
    }

    @SuppressWarnings("unchecked")
    private Shared fromFactory() {
        RedisConnection connection;
        try {
            connection = factory.getConnection();
        } catch (RuntimeException e) {
            // cannot connect, or the factory has stopped (the context is closing)
            throw new Failed(e);
        }
        try {
            Object nativeCommands = connection.getNativeConnection();
            StatefulConnection<byte[], byte[]> stateful = null;
            if (nativeCommands instanceof RedisAsyncCommands<?, ?> standalone) {
                stateful = (StatefulConnection<byte[], byte[]>) standalone.getStatefulConnection();
            } else if (nativeCommands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
                stateful = (StatefulConnection<byte[], byte[]>) cluster.getStatefulConnection();
            }
            return new Shared(stateful, (RedisClusterAsyncCommands<byte[], byte[]>) nativeCommands);
        } finally {
            // the shared native connection stays open: closing the wrapper releases nothing of it
            connection.close();
        }
    }

    /**
     * Waits on {@code future} until the deadline; an interrupt does not cut the wait short (the flag is kept).
     */
    private static <T> T await(RedisFuture<T> future, long deadlineNanos, Supplier<? extends RuntimeException> onTimeout)
            throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0 && !future.isDone()) {
                    // not yet written (a reconnecting connection queues it): it is never sent; else it is a gap
                    future.cancel(false);
                    throw onTimeout.get();
                }
                try {
                    return future.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // the loop checks the deadline again
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (CancellationException e) {
                    throw new ExecutionException("cancelled by Lettuce", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static boolean isNoScript(@Nullable Throwable failure) {
        return failure instanceof RedisNoScriptException
                || (failure != null && failure.getMessage() != null && failure.getMessage().startsWith("NOSCRIPT"));
    }

    private RuntimeException translate(@Nullable Throwable failure) {
        if (failure instanceof RuntimeException e) {
            RuntimeException translated = factory.translateExceptionIfPossible(e);
            return translated != null ? translated : e;
        }
        return new IllegalStateException(String.valueOf(failure), failure);
    }

    private static byte[][] bytes(List<String> values) {
        byte[][] bytes = new byte[values.size()][];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    /** Bulk strings as UTF-8 strings, lists element by element, like {@code StringRedisTemplate}'s scripts. */
    private static Object decode(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> list) {
            List<Object> decoded = new ArrayList<>(list.size());
            for (Object element : list) {
                decoded.add(decode(element));
            }
            return decoded;
        }
        return reply;
    }
}

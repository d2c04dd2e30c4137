package io.github.idworker.redis;

import java.util.List;
import java.util.function.Supplier;

/**
 * Runs one of idworker's Lua scripts on Redis: the only thing a Redis client adapter has to do.
 *
 * <p>Implementations call the script by its SHA-1 ({@code EVALSHA}) and load it again when Redis answers
 * {@code NOSCRIPT}. All keys of one call share a hash tag, so the call works on Redis Cluster. Failures to reach
 * Redis surface as {@link io.github.idworker.CenterUnavailableException}.
 *
 * <p>The paths that issue (a Redis sequence's {@code nextId}, a strict serial's {@code next}, a pool's
 * {@code take}) call {@link #execute(LuaScript, List, List, long, Supplier)} with their caller's deadline: it must
 * return or throw by then, whatever the client's socket timeout, retries and reconnects add up to. Its default
 * hands the call to a pooled thread and stops waiting at the deadline ({@link BoundedCalls}), which is right for
 * any client; an adapter that can wait for its client's answer with a timeout of its own (an asynchronous client),
 * or that knows its client's longest blocking time, overrides it to spare that thread hand-off.
 */
@FunctionalInterface
public interface RedisScriptExecutor {

    /**
     * Runs {@code script} and returns its reply as a list: integers as {@link Long}, bulk strings as
     * {@link String} (or {@code byte[]}, which callers accept too), nested replies as lists.
     */
    List<Object> execute(LuaScript script, List<String> keys, List<String> args);

    /**
     * Runs {@code script} like {@link #execute(LuaScript, List, List)}, its caller waiting at most until
     * {@code deadlineNanos} ({@link System#nanoTime()}); then {@code onTimeout}'s exception is thrown.
     *
     * <p>The contract an override keeps:
     * <ol>
     *   <li>it returns or throws by {@code deadlineNanos} (plus scheduling noise), also when Redis hangs, the
     *       connection breaks or the script must be loaded again after {@code NOSCRIPT};</li>
     *   <li>a deadline already passed throws {@code onTimeout}'s exception without sending anything;</li>
     *   <li>a call it stops waiting for may still run in Redis later: every issuing script advances its counter or
     *       pops its IDs atomically, so such a call leaves a gap, never a duplicate;</li>
     *   <li>an interrupt does not cut the wait short (the deadline bounds it anyway); the flag is kept.</li>
     * </ol>
     * The default runs {@link #execute(LuaScript, List, List)} through {@link BoundedCalls#call}: one hand-off to a
     * pooled thread per call.
     */
    default List<Object> execute(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                                 Supplier<? extends RuntimeException> onTimeout) {
        return BoundedCalls.call(() -> execute(script, keys, args), deadlineNanos, onTimeout);
    }

    /**
     * Whether every call through this executor and through {@code other} runs on one and the same single Redis
     * server (standalone, or the master of a Sentinel or replicated setup; never Redis Cluster): then one script
     * through this executor may take keys of different hash tags, the keys {@code other}'s scripts use among them,
     * and find them where {@code other} would. {@code false} when this executor cannot tell, which keeps every
     * call to the keys of one hash tag; the default.
     */
    default boolean sharesOneServerWith(RedisScriptExecutor other) {
        return false;
    }
}

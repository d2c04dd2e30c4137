package io.github.idworker.redis;

import java.util.List;

/**
 * Runs one of idworker's Lua scripts on Redis: the only thing a Redis client adapter has to do.
 *
 * <p>Implementations call the script by its SHA-1 ({@code EVALSHA}) and load it again when Redis answers
 * {@code NOSCRIPT}. All keys of one call share a hash tag, so the call works on Redis Cluster. Failures to reach
 * Redis surface as {@link io.github.idworker.CenterUnavailableException}.
 */
@FunctionalInterface
public interface RedisScriptExecutor {

    /**
     * Runs {@code script} and returns its reply as a list: integers as {@link Long}, bulk strings as
     * {@link String} (or {@code byte[]}, which callers accept too), nested replies as lists.
     */
    List<Object> execute(LuaScript script, List<String> keys, List<String> args);
}

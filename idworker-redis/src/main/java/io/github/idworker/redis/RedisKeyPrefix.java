package io.github.idworker.redis;

import io.github.idworker.IdWorkerConfigurationException;

/**
 * The first part of every idworker key's hash tag ({@code idworker.redis.key-prefix}), checked once for every
 * Redis store: a prefix that passes keeps every key of one namespace, tag or rule on one Redis Cluster slot.
 */
public final class RedisKeyPrefix {

    /** The property every Redis store takes its key prefix from. */
    public static final String PROPERTY = "idworker.redis.key-prefix";

    private RedisKeyPrefix() {
    }

    /**
     * @return {@code prefix}
     * @throws IdWorkerConfigurationException naming {@value #PROPERTY} when it is blank or holds a brace
     */
    public static String check(String prefix) {
        if (prefix == null || prefix.isBlank()) {
            throw new IdWorkerConfigurationException(PROPERTY, "must not be blank");
        }
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IdWorkerConfigurationException(PROPERTY,
                    "must not contain '{' or '}' (idworker adds the Redis Cluster hash tag itself), was '" + prefix + "'");
        }
        return prefix;
    }
}

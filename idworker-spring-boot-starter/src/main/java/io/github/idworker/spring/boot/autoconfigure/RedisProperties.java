package io.github.idworker.spring.boot.autoconfigure;

/**
 * Redis centre, used with {@code @EnableIdWorker(mode = CenterMode.REDIS)}, and the keys of the Redis
 * sequences of {@code @EnableSegmentIdGenerators(redisSequences = true)}.
 * Bound to {@code idworker.redis.*}.
 */
public class RedisProperties {

    /**
     * Prefix of the Redis keys; a namespace's keys share the hash tag "{prefix:namespace}", a Redis sequence's
     * keys the hash tag "{prefix:segment:tag}", an ID pool's keys the hash tag "{prefix:pool:entity}".
     */
    private String keyPrefix = "idworker";

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }
}

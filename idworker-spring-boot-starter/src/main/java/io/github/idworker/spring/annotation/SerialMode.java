package io.github.idworker.spring.annotation;

/**
 * How the serial numbers {@link EnableSerialNumbers} registers are handed out. Both read the same rules from the
 * same rule table and never hand out a string twice; they differ in what else they promise.
 */
public enum SerialMode {

    /**
     * One stock per rule and period in Redis, shared by every node: numbers are handed out first come, first
     * served across all nodes, contiguous within a period while nothing fails. Bean {@code serialNumbers} is a
     * {@link io.github.idworker.serial.redis.RedisSerialNumbers} over the application's
     * {@code RedisConnectionFactory}; needs spring-data-redis.
     */
    STRICT,

    /**
     * In-process ranges per rule and period reserved in the database, for applications without Redis: numbers
     * increase per node but interleave across nodes, and a restart leaves a gap. Bean {@code serialNumbers} is a
     * {@link io.github.idworker.serial.LocalSerialNumbers}.
     */
    LOCAL
}

package io.github.idworker.serial.redis;

import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;

import java.util.List;
import java.util.Objects;

/**
 * Strict serial numbers: one stock per (rule, period) in Redis shared by every node, first come first served.
 * (Being written; the algorithm lands with its tests.)
 */
public class RedisSerialNumbers implements SerialNumbers, AutoCloseable {

    private final RedisScriptExecutor executor;
    private final SerialStore store;
    private final SerialRules rules;
    private final RedisSerialOptions options;

    public RedisSerialNumbers(RedisScriptExecutor executor, SerialStore store, SerialRules rules,
                              RedisSerialOptions options) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.store = Objects.requireNonNull(store, "store");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public String next(String rule) {
        throw new UnsupportedOperationException("in progress");
    }

    @Override
    public List<String> next(String rule, int count) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Calls that found the stock empty and waited for a refill. */
    public long waitedCalls() {
        return 0;
    }

    /** Refills this instance installed. */
    public long refills() {
        return 0;
    }

    @Override
    public void close() {
    }
}

package io.github.idworker.test.serial;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link SerialStore} in memory that keeps the SPI's contract (high-waters only grow, reservations never
 * overlap, none passes {@code max}), for tests that need many periods fast; {@link #failing} makes every call fail
 * as an unreachable store does.
 */
final class InMemorySerialStore implements SerialStore {

    private final Map<String, SerialRule> rules = new ConcurrentHashMap<>();
    private final Map<String, Long> highWaters = new ConcurrentHashMap<>();
    volatile boolean failing;

    private void check() {
        if (failing) {
            throw new CenterUnavailableException("in-memory serial store is down", null);
        }
    }

    @Override
    public SerialRule register(SerialRule rule) {
        check();
        return rules.computeIfAbsent(rule.name(), n -> rule);
    }

    /** Replaces the stored rule, as an operator editing its row does. */
    void edit(SerialRule rule) {
        rules.put(rule.name(), rule);
    }

    @Override
    public Optional<SerialRule> find(String name) {
        check();
        return Optional.ofNullable(rules.get(name));
    }

    @Override
    public synchronized SerialRange reserve(SerialRule rule, String period, int count) {
        check();
        String key = rule.name() + '\u0000' + period;
        long hw = highWaters.getOrDefault(key, rule.start() - 1);
        if (hw >= rule.max()) {
            throw new SerialExhaustedException(rule.name(), period, rule.max());
        }
        long last = Math.min(rule.max(), hw + count);
        highWaters.put(key, last);
        return new SerialRange(rule.name(), period, hw + 1, last);
    }

    @Override
    public OptionalLong highWater(String rule, String period) {
        check();
        Long hw = highWaters.get(rule + '\u0000' + period);
        return hw == null ? OptionalLong.empty() : OptionalLong.of(hw);
    }
}

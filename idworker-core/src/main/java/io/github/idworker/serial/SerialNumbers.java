package io.github.idworker.serial;

import java.util.List;
import java.util.Optional;

/**
 * Hands out the serial numbers of named rules: strings {@code prefix + date + zero-padded number} such as
 * {@code ORD20261123000042}. Every implementation guarantees that no string is handed out twice for a rule,
 * across threads, nodes and restarts; the date is the hand-out date in the rule's zone. What else holds (one
 * order across nodes, no gaps) depends on the implementation: {@code RedisSerialNumbers} is first come, first
 * served and contiguous across nodes while nothing fails; {@link LocalSerialNumbers} is increasing per node only.
 *
 * <p>Thread-safe.
 */
public interface SerialNumbers {

    /**
     * The next serial of {@code rule}.
     *
     * @throws UnknownSerialRuleException when no rule of that name is registered
     * @throws SerialExhaustedException when the rule's period has handed out its {@code max}
     * @throws io.github.idworker.CenterUnavailableException when the stores cannot be reached and no stock is left
     */
    String next(String rule);

    /**
     * The next {@code count} serials of {@code rule}, in increasing order, all of one period, taken at once: all
     * or nothing.
     *
     * @param count 1 to the rule's {@code max-batch}
     * @throws IllegalArgumentException naming {@code count} when it is out of range
     * @throws SerialExhaustedException when fewer than {@code count} numbers are left in the period; none is taken
     */
    List<String> next(String rule, int count);

    /**
     * What this node remembers about each rule it knows, by rule name order; reads memory only, never a store, so
     * a health probe or an operator page may call it while the stores are down. Empty unless the implementation
     * keeps such counters.
     */
    default List<SerialRuleStatus> ruleStatuses() {
        return List.of();
    }

    /**
     * What this node remembers about one rule, or empty when it knows none of that name; reads memory only. For
     * meters that read one rule per publish: implementations answer without building every rule's status (this
     * default scans {@link #ruleStatuses()}).
     */
    default Optional<SerialRuleStatus> ruleStatus(String rule) {
        return ruleStatuses().stream().filter(s -> s.rule().equals(rule)).findFirst();
    }
}

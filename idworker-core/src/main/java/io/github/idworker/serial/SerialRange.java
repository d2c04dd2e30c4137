package io.github.idworker.serial;

/**
 * The numbers {@code first..last} (inclusive) of one rule and period, reserved in the durable store: no other
 * reservation of that rule and period, by any node, overlaps them.
 *
 * @param rule the rule's name
 * @param period the period key, e.g. {@code 20261123}
 * @param first the first number
 * @param last the last number, at least {@code first}
 */
public record SerialRange(String rule, String period, long first, long last) {

    public SerialRange {
        if (last < first) {
            throw new IllegalArgumentException("last " + last + " is below first " + first);
        }
    }

    /** How many numbers the range holds. */
    public long size() {
        return last - first + 1;
    }
}

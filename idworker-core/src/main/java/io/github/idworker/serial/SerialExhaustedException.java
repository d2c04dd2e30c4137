package io.github.idworker.serial;

import io.github.idworker.IdWorkerException;

/**
 * A rule's period has handed out every number up to the rule's {@code max}; nothing past it is ever issued, and
 * nothing was issued by the call that got this.
 */
public class SerialExhaustedException extends IdWorkerException {

    private final String rule;
    private final String period;
    private final long max;

    public SerialExhaustedException(String rule, String period, long max) {
        super("Serial rule '" + rule + "' has no numbers left in period " + period + ": its max " + max
                + " is reached. Raise " + SerialRule.property(rule, "max") + " (within the width) or wait for the next "
                + "period.");
        this.rule = rule;
        this.period = period;
        this.max = max;
    }

    public String getRule() {
        return rule;
    }

    /** The period key, e.g. {@code 20261123}. */
    public String getPeriod() {
        return period;
    }

    public long getMax() {
        return max;
    }
}

package io.github.idworker.serial;

import io.github.idworker.CenterUnavailableException;

import java.time.Duration;

/**
 * The shared stock of a serial rule and period was empty and no refill landed within the bounded wait (the
 * database or Redis is down, or refills keep failing); nothing was handed out. A kind of
 * {@link CenterUnavailableException}: retry later.
 */
public class SerialStockEmptyException extends CenterUnavailableException {

    private final String rule;
    private final String period;

    public SerialStockEmptyException(String rule, String period, Duration waited, Throwable lastFailure) {
        super("The stock of serial rule '" + rule + "' for period " + period + " is empty and no refill landed within "
                + waited.toMillis() + " ms (idworker.serial.redis.max-wait)"
                + (lastFailure == null ? "" : "; last refill failure: " + lastFailure.getMessage()), lastFailure);
        this.rule = rule;
        this.period = period;
    }

    public String getRule() {
        return rule;
    }

    public String getPeriod() {
        return period;
    }
}

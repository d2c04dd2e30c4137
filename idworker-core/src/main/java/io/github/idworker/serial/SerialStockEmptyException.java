package io.github.idworker.serial;

import io.github.idworker.CenterUnavailableException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * The shared stock of a serial rule and period was empty and no refill landed within the bounded wait (the
 * database or Redis is down, or refills keep failing); nothing was handed out. A kind of
 * {@link CenterUnavailableException}: retry later.
 */
public class SerialStockEmptyException extends CenterUnavailableException {

    private final String rule;
    private final String period;

    /**
     * @param waited how long the caller waited
     * @param property the setting that bounds the wait, named in the message
     * @param lastFailure why the last refill failed, if one did
     */
    public SerialStockEmptyException(String rule, String period, Duration waited, String property,
                                     @Nullable Throwable lastFailure) {
        super("The stock of serial rule '" + rule + "' for period " + period + " is empty and no refill landed within "
                + waited.toMillis() + " ms (" + property + ")"
                + (lastFailure == null ? "" : "; last refill failure: " + lastFailure.getMessage()), lastFailure);
        this.rule = rule;
        this.period = period;
    }

    /**
     * @param message why nothing was handed out, naming the setting that bounds the wait
     * @param cause the failure behind it, if any
     */
    public SerialStockEmptyException(String rule, String period, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.rule = rule;
        this.period = period;
    }

    /** A call that ended at its deadline: {@code message} says why. */
    public SerialStockEmptyException(String rule, String period, String message) {
        this(rule, period, message, null);
    }

    public String getRule() {
        return rule;
    }

    public String getPeriod() {
        return period;
    }
}

package io.github.idworker.segment;

import io.github.idworker.IdWorkerException;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * A caller found no number left in memory or in Redis and no new range arrived within the bounded wait; nothing
 * was issued. The cause, when present, is the last failure of the store.
 */
public class SegmentRefillTimeoutException extends IdWorkerException {

    private final String bizTag;

    /**
     * @param bizTag the tag whose range ran out
     * @param waited how long the caller waited
     * @param property the setting that bounds the wait, named in the message
     * @param cause the last refill failure, or {@code null} when the refill was merely slow
     */
    public SegmentRefillTimeoutException(String bizTag, Duration waited, String property, @Nullable Throwable cause) {
        super("No new range of segment tag '" + bizTag + "' arrived within " + waited.toMillis() + " ms ("
                + property + ")" + (cause != null ? "; last refill failure: " + cause.getMessage()
                        : "; the store is slow or another node holds the refill lock")
                + ". Check the segment store, or raise " + property + ".", cause);
        this.bizTag = bizTag;
    }

    public String getBizTag() {
        return bizTag;
    }
}

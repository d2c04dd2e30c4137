package io.github.idworker.pool;

import io.github.idworker.IdWorkerConfigurationException;

import java.util.Locale;

/**
 * How the IDs of one pool follow each other. Whatever the type, no ID is handed out twice.
 */
public enum IncreasingType {

    /**
     * Strictly increasing in take order across all nodes: when one take returned before another began, every ID
     * of the first is smaller than every ID of the second. Chunks are appended in order, optionally with random
     * gaps so the IDs do not reveal business volume.
     */
    MONOTONIC,

    /**
     * Increasing chunk by chunk: each chunk of {@code step} numbers is shuffled before it is appended, so IDs of one
     * chunk come out in random order, and every ID of a later chunk is larger than every ID of an earlier one.
     */
    TREND;

    /**
     * @throws IdWorkerConfigurationException naming {@code property} when {@code value} is neither type
     */
    public static IncreasingType parse(String value, String property) {
        if (value != null) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException ignored) {
                // fall through to the message naming the allowed values
            }
        }
        throw new IdWorkerConfigurationException(property, "must be MONOTONIC or TREND, was '" + value + "'");
    }
}

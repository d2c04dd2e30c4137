package io.github.idworker.sample;

/**
 * This instance has no Redis sequences (profile {@code db} runs without Redis); answered with HTTP 503 and a
 * message saying which endpoint to use instead.
 */
public class RedisSequencesUnavailableException extends RuntimeException {

    public RedisSequencesUnavailableException(String message) {
        super(message);
    }
}

package io.github.idworker.snowflake;

/**
 * The wall clock a worker reads, in milliseconds since 1970-01-01T00:00:00Z.
 *
 * <p>It may step backwards; workers detect that and never reissue. Tests drive a worker through a
 * controllable implementation.
 */
@FunctionalInterface
public interface MillisClock {

    /** The system clock, {@link System#currentTimeMillis()}. */
    MillisClock SYSTEM = System::currentTimeMillis;

    long millis();
}

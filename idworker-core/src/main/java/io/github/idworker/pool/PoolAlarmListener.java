package io.github.idworker.pool;

/**
 * Hears every {@link PoolAlarm} of the pools it is registered with, on the thread that raised it (a taker's or the
 * refiller's): keep it quick and do not throw; an exception is logged and otherwise ignored.
 */
@FunctionalInterface
public interface PoolAlarmListener {

    void onAlarm(PoolAlarm alarm);
}

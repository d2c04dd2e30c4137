package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.PoolAlarm;
import org.springframework.context.ApplicationEvent;

/**
 * One {@link PoolAlarm} of the {@code idPools} bean, published to the application's listeners: an ID pool is
 * running low ({@link PoolAlarm.Kind#LOW}) or a take was refused because it ran dry ({@link PoolAlarm.Kind#EMPTY}).
 * Every alarm the pools raise is published, none is deduplicated (the WARN log line is rate-limited, this is not).
 *
 * <p>Published synchronously on the thread that raised the alarm — a caller's thread inside {@code take} for
 * {@code EMPTY}, a refill thread for {@code LOW} — so a listener should be quick and must not take IDs from the
 * same pool; annotate it {@code @Async} for anything slow. {@code @EventListener} methods hear alarms raised after
 * the context finished starting; {@code ApplicationListener} beans hear those during startup too.
 */
public class PoolAlarmEvent extends ApplicationEvent {

    private final PoolAlarm alarm;

    /**
     * @param source the pools that raised the alarm
     * @param alarm what happened
     */
    public PoolAlarmEvent(IdPools source, PoolAlarm alarm) {
        super(source);
        if (alarm == null) {
            throw new IllegalArgumentException("alarm must not be null");
        }
        this.alarm = alarm;
    }

    public PoolAlarm getAlarm() {
        return this.alarm;
    }

    /** The pools that raised the alarm. */
    public IdPools getIdPools() {
        return (IdPools) getSource();
    }

    @Override
    public String toString() {
        return "PoolAlarmEvent[" + this.alarm + "]";
    }
}

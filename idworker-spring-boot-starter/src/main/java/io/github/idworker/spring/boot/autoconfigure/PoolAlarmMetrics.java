package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolAlarmListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts every {@link PoolAlarm} in the counter {@value #METER_NAME}, tagged {@code entity} (the entity key) and
 * {@code kind} ({@code low} or {@code empty}). Loaded only when Micrometer is on the class path
 * ({@link IdPoolsMetricsConfig}); holds no registry when the application has no {@code MeterRegistry} bean, and
 * then counts nothing.
 */
public class PoolAlarmMetrics implements PoolAlarmListener {

    /** Name of the counter. */
    public static final String METER_NAME = "idworker.pool.alarms";

    private final @Nullable MeterRegistry registry;
    /** One counter per entity and kind, so an alarm costs a map read rather than a registry lookup. */
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    /** @param registry where the counter lives; {@code null} to count nothing */
    public PoolAlarmMetrics(@Nullable MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onAlarm(PoolAlarm alarm) {
        if (this.registry == null) {
            return;
        }
        String kind = alarm.kind().name().toLowerCase(Locale.ROOT);
        this.counters.computeIfAbsent(alarm.entity() + '\u0000' + kind, k -> Counter.builder(METER_NAME)
                .description("ID pool alarms: kind low when a refill check left the pool below its threshold, "
                        + "empty when a take was refused because the pool held fewer IDs than asked for")
                .tag("entity", alarm.entity())
                .tag("kind", kind)
                .register(this.registry)).increment();
    }

    @Override
    public String toString() {
        return "PoolAlarmMetrics[" + (this.registry != null ? this.registry.getClass().getSimpleName() : "no registry")
                + "]";
    }
}

package io.github.idworker.spring.boot.actuate;

import io.github.idworker.IdGenerator;
import io.github.idworker.pool.IdPools;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.snowflake.AbstractIdWorker;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.SingletonBeanRegistry;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The generators of every mode present in the application context, looked up afresh on each call, so that tags
 * created on first use and beans of every {@code @Enable…} annotation are seen. Every lookup returns objects
 * that live in memory; nothing here calls a store. Shared by the {@code idworker} endpoint, the health
 * indicators and the meters.
 */
public final class IdWorkerSources {

    /**
     * Bean definition attribute that marks a named generator of {@code idworker.generators.<name>}; its value is
     * the generator's name, which is also its bean's name.
     */
    public static final String GENERATOR_ATTRIBUTE = "io.github.idworker.generator";

    private final ListableBeanFactory beans;
    private final SingletonBeanRegistry singletons;
    /** Where the bean definitions are read, to tell the named generators; {@code null} when it cannot be had. */
    private final @Nullable ConfigurableListableBeanFactory definitions;

    /**
     * @param beans the context whose singletons are looked up; only singletons already created are returned, so
     *        no lookup ever creates a bean (non-singletons and lazy beans not used yet stay absent)
     */
    public IdWorkerSources(ListableBeanFactory beans) {
        this.beans = beans;
        this.singletons = registryOf(beans);
        this.definitions = definitionsOf(beans);
    }

    private static @Nullable ConfigurableListableBeanFactory definitionsOf(ListableBeanFactory beans) {
        if (beans instanceof ConfigurableListableBeanFactory f) {
            return f;
        }
        if (beans instanceof ConfigurableApplicationContext c) {
            return c.getBeanFactory();
        }
        return null;
    }

    private static SingletonBeanRegistry registryOf(ListableBeanFactory beans) {
        if (beans instanceof SingletonBeanRegistry r) {
            return r;
        }
        if (beans instanceof ApplicationContext c
                && c.getAutowireCapableBeanFactory() instanceof SingletonBeanRegistry r) {
            return r;
        }
        throw new IllegalArgumentException("IdWorkerSources needs a bean factory that tells which singletons exist "
                + "(a SingletonBeanRegistry), was " + beans.getClass().getName());
    }

    /** The snowflake workers, by bean name. */
    public Map<String, AbstractIdWorker> workers() {
        return new TreeMap<>(beansOf(AbstractIdWorker.class));
    }

    /**
     * The named generators of {@code idworker.generators} among {@link #workers()}, by name (their bean names):
     * the workers whose bean definition carries {@link #GENERATOR_ATTRIBUTE}.
     */
    public Map<String, AbstractIdWorker> generators() {
        Map<String, AbstractIdWorker> out = new TreeMap<>();
        ConfigurableListableBeanFactory d = definitions;
        if (d == null) {
            return out;
        }
        beansOf(AbstractIdWorker.class).forEach((name, worker) -> {
            if (d.containsBeanDefinition(name) && d.getBeanDefinition(name).getAttribute(GENERATOR_ATTRIBUTE) != null) {
                out.put(name, worker);
            }
        });
        return out;
    }

    /** The in-process segment generators created so far, by tag. */
    public Map<String, SegmentIdGenerator> segments() {
        Map<String, SegmentIdGenerator> out = new TreeMap<>();
        for (IdGenerator g : segmentLookups()) {
            if (g instanceof SegmentIdGenerator s) {
                out.putIfAbsent(s.bizTag(), s);
            }
        }
        return out;
    }

    /** The strictly ordered Redis sequences created so far, by tag. */
    public Map<String, RedisSegmentIdGenerator> sequences() {
        Map<String, RedisSegmentIdGenerator> out = new TreeMap<>();
        for (RedisSequenceGenerators lookup : beansOf(RedisSequenceGenerators.class).values()) {
            lookup.generators().forEach(out::putIfAbsent);
        }
        // a SegmentIdGenerators may be built over Redis generators as its Javadoc shows
        for (IdGenerator g : segmentLookups()) {
            if (g instanceof RedisSegmentIdGenerator r) {
                out.putIfAbsent(r.bizTag(), r);
            }
        }
        return out;
    }

    /** The serial number beans, by bean name. */
    public Map<String, SerialNumbers> serials() {
        return new TreeMap<>(beansOf(SerialNumbers.class));
    }

    /** The ID pool beans, by bean name. */
    public Map<String, IdPools> pools() {
        return new TreeMap<>(beansOf(IdPools.class));
    }

    private List<IdGenerator> segmentLookups() {
        List<IdGenerator> out = new ArrayList<>();
        for (SegmentIdGenerators lookup : beansOf(SegmentIdGenerators.class).values()) {
            out.addAll(lookup.generators().values());
        }
        return out;
    }

    private <T> Map<String, T> beansOf(Class<T> type) {
        // a probe must never create a bean: creating one can call a store (borrow a lease, register a rule), and
        // getBeansOfType(type, false, false) still creates a lazy singleton not yet used. Only singletons that
        // exist are fetched, and fetching those creates nothing.
        Map<String, T> out = new LinkedHashMap<>();
        for (String name : beans.getBeanNamesForType(type, false, false)) {
            if (singletons.containsSingleton(name)) {
                out.put(name, beans.getBean(name, type));
            }
        }
        return out;
    }
}

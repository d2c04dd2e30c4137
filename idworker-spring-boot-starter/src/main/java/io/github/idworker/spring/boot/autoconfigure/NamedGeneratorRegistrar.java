package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.entity.IdSources;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.spring.boot.actuate.IdWorkerSources;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Constructor;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Registers one snowflake worker bean per entry of {@code idworker.generators}, named as the entry, beside the
 * worker of {@code @EnableIdWorker}. It guarantees that each generator leases its worker id in a namespace of its
 * own (no other generator's and not the default worker's) from the centre the default worker uses, that it holds
 * its lease before any bean that injects it is created, and that it returns its lease when the context stops, as
 * the default worker does. The generators are not candidates for injection by type alone, so an application that
 * injects its one worker by type keeps getting it; a generator is injected by name, with {@code @Qualifier("name")}.
 *
 * <p>Steps, once every configuration class is parsed (a registry post-processor, so the enabled mode is known):
 * <ol>
 *   <li>Read the names under {@code idworker.generators}; stop when there is none.</li>
 *   <li>Find the one enabled {@code @EnableIdWorker} mode; several fail the startup, since it would be unclear
 *       which centre the generators lease from.</li>
 *   <li>For each name: check it (letters, digits, '-' and '_'; no bean of that name yet); bind its groups over the
 *       values of {@code idworker.snowflake}, {@code idworker.lease} and {@code idworker.worker-id}, so an unset key
 *       is inherited; check its namespace (set, valid, not another worker's).</li>
 *   <li>Register the worker (started at creation, closed at destroy, built from the mode's worker class and lease
 *       manager bean) and a {@link ClosingLifecycle} that returns its lease before the connection factories
 *       stop.</li>
 * </ol>
 * The layout and lease values are checked when the worker is built; an error names the generator's key
 * ({@code idworker.generators.<name>.snowflake.worker-bits}), whether the value was set there or inherited. The
 * centre's time bound on one call ({@code idworker.jdbc.statement-timeout} in DB mode,
 * {@code idworker.zookeeper.operation-timeout} in ZooKeeper mode) is checked against each generator's heartbeat
 * too, as against the default worker's, so a hung renewal of any worker is given up before its lease runs out.
 */
final class NamedGeneratorRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    static final String PREFIX = IdWorkerProperties.PREFIX + ".generators";
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern GROUP_KEYS = Pattern.compile("idworker\\.(snowflake|lease|worker-id)\\.");
    private static final Pattern NAMESPACE_KEY = Pattern.compile("idworker\\.namespace\\b");

    @SuppressWarnings("NullAway.Init") // set by Spring's Aware callback before any post-processing
    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        Map<String, Set<ConfigurationPropertyName>> configured = prefixes(environment);
        if (configured.isEmpty() || !(registry instanceof ConfigurableListableBeanFactory beanFactory)) {
            return;
        }
        List<WorkerMode> modes = WorkerMode.enabledIn(beanFactory);
        if (modes.size() != 1) {
            throw new IdWorkerConfigurationException(PREFIX, "names generators " + configured.keySet() + ", which "
                    + "lease from the centre of @EnableIdWorker, but " + modes.size() + " modes are enabled "
                    + modes.stream().map(WorkerMode::annotation).toList() + "; keep one @EnableIdWorker");
        }
        WorkerMode mode = modes.get(0);
        Binder binder = Binder.get(environment);
        IdWorkerProperties defaults = binder.bindOrCreate(IdWorkerProperties.PREFIX, IdWorkerProperties.class);
        Map<String, String> namespaces = new HashMap<>();
        namespaces.put(WorkerOptionsFactory.namespace(defaults, environment), "the default worker's namespace ("
                + mode.workerBean() + ")");
        for (Map.Entry<String, Set<ConfigurationPropertyName>> e : configured.entrySet()) {
            String name = e.getKey();
            checkName(name, registry);
            SnowflakeWorkerProperties generator = bind(binder, e.getValue());
            String namespace = checkNamespace(name, generator, namespaces);
            register(registry, beanFactory, mode, name, namespace, generator, defaults);
        }
    }

    /**
     * The generators' names, each with the names under which the environment holds its keys: as written, so that a
     * name keeps its capitals and '_' (idworker.generators.Order_Ids.namespace is generator {@code Order_Ids}), as
     * Spring Boot's binding of the {@code generators} map keeps them.
     */
    static Map<String, Set<ConfigurationPropertyName>> prefixes(Environment environment) {
        ConfigurationPropertyName root = ConfigurationPropertyName.of(PREFIX);
        int depth = root.getNumberOfElements();
        Map<String, Set<ConfigurationPropertyName>> out = new TreeMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(root::isAncestorOf).filter(n -> n.getNumberOfElements() > depth + 1)
                        .forEach(n -> out.computeIfAbsent(n.getElement(depth, ConfigurationPropertyName.Form.ORIGINAL),
                                k -> new LinkedHashSet<>()).add(n.chop(depth + 1)));
            }
        }
        return out;
    }

    /** The generator's groups bound over the top-level ones, so a key it leaves unset keeps their value. */
    private static SnowflakeWorkerProperties bind(Binder binder, Set<ConfigurationPropertyName> prefixes) {
        SnowflakeWorkerProperties generator = new SnowflakeWorkerProperties();
        binder.bind(IdWorkerProperties.PREFIX + ".snowflake", Bindable.ofInstance(generator.getSnowflake()));
        binder.bind(IdWorkerProperties.PREFIX + ".lease", Bindable.ofInstance(generator.getLease()));
        binder.bind(IdWorkerProperties.PREFIX + ".worker-id", Bindable.ofInstance(generator.getWorkerId()));
        for (ConfigurationPropertyName own : prefixes) {
            binder.bind(own.append("snowflake"), Bindable.ofInstance(generator.getSnowflake()));
            binder.bind(own.append("lease"), Bindable.ofInstance(generator.getLease()));
            binder.bind(own.append("worker-id"), Bindable.ofInstance(generator.getWorkerId()));
            binder.bind(own.append("namespace"), Bindable.of(String.class)).ifBound(generator::setNamespace);
        }
        return generator;
    }

    private static void checkName(String name, BeanDefinitionRegistry registry) {
        if (!NAME.matcher(name).matches()) {
            throw new IdWorkerConfigurationException(PREFIX + "[" + name + "]", "a generator's name is its bean's "
                    + "name and must be 1 to 64 letters, digits, '-' or '_', was '" + name + "'");
        }
        if (name.equalsIgnoreCase(IdSources.SNOWFLAKE)) {
            // @GeneratedId's source "snowflake" is the default worker: a generator of that name would give one
            // table IDs of two namespaces, which may be equal
            throw new IdWorkerConfigurationException(PREFIX + "." + name, "'" + IdSources.SNOWFLAKE + "' names the "
                    + "default worker among the ID sources of @GeneratedId and @SourcedId; choose another generator "
                    + "name");
        }
        if (registry.containsBeanDefinition(name) || registry.containsBeanDefinition(lifecycleBean(name))) {
            throw new IdWorkerConfigurationException(PREFIX + "." + name,
                    "the generator's bean would be named '" + name + "', which another bean of the application "
                            + "already has; choose another generator name");
        }
    }

    /** The namespace, checked: set, valid and no other worker's; records it in {@code taken}. */
    private static String checkNamespace(String name, SnowflakeWorkerProperties generator, Map<String, String> taken) {
        String property = property(name, "namespace");
        String namespace = generator.getNamespace();
        if (namespace == null || namespace.isBlank()) {
            throw new IdWorkerConfigurationException(property, "must be set: each generator leases its worker id in "
                    + "a namespace of its own; " + WorkerOptions.NAMESPACE_RULE);
        }
        if (!WorkerOptions.isValidNamespace(namespace)) {
            throw new IdWorkerConfigurationException(property, WorkerOptions.NAMESPACE_RULE + ", was '" + namespace
                    + "'");
        }
        String holder = taken.putIfAbsent(namespace, "the namespace of generator '" + name + "' (" + property + ")");
        if (holder != null) {
            throw new IdWorkerConfigurationException(property, "is '" + namespace + "', which is already " + holder
                    + "; each generator needs a namespace of its own (a second worker in one namespace is "
                    + "just another worker of the same ids, no new generator)");
        }
        return namespace;
    }

    private void register(BeanDefinitionRegistry registry, ConfigurableListableBeanFactory beanFactory,
                          WorkerMode mode, String name, String namespace, SnowflakeWorkerProperties generator,
                          IdWorkerProperties defaults) {
        JdbcProperties jdbc = defaults.getJdbc();
        Class<? extends AbstractIdWorker> type = workerClass(mode, beanFactory.getBeanClassLoader());
        RootBeanDefinition worker = new RootBeanDefinition(type);
        worker.setInstanceSupplier(() -> {
            WorkerOptions options = options(name, namespace, generator);
            if (mode == WorkerMode.DB) {
                DBIdWorkerConfig.checkStatementTimeout(
                        new JdbcTimeouts(jdbc.getStatementTimeout(), jdbc.getNetworkTimeout()),
                        options.heartbeatInterval(), property(name, "lease."));
            } else if (mode == WorkerMode.ZOOKEEPER) {
                ZookeeperIdWorkerConfig.checkOperationTimeout(defaults.getZookeeper().getOperationTimeout(),
                        options.heartbeatInterval(), property(name, "lease."));
            }
            ISequenceManager manager = beanFactory.getBean(mode.managerBean(), ISequenceManager.class);
            return BeanUtils.instantiateClass(constructor(type), manager, options);
        });
        worker.setInitMethodName("start");
        worker.setDestroyMethodName("close");
        // only with a qualifier naming it: an application injecting its one worker by type keeps getting it
        worker.setDefaultCandidate(false);
        worker.setDependsOn(mode.managerBean());
        worker.setAttribute(IdWorkerSources.GENERATOR_ATTRIBUTE, name);
        registry.registerBeanDefinition(name, worker);
        RootBeanDefinition lifecycle = new RootBeanDefinition(ClosingLifecycle.class,
                () -> new ClosingLifecycle(beanFactory.getBean(name, AbstractIdWorker.class)));
        lifecycle.setDefaultCandidate(false);
        registry.registerBeanDefinition(lifecycleBean(name), lifecycle);
    }

    /** Options of generator {@code name}; an error names the generator's key rather than the top-level one. */
    private WorkerOptions options(String name, String namespace, SnowflakeWorkerProperties generator) {
        try {
            return WorkerOptionsFactory.create(namespace, generator.getSnowflake(), generator.getLease(),
                    generator.getWorkerId(), environment);
        } catch (IdWorkerConfigurationException e) {
            String message = String.valueOf(e.getMessage());
            String detail = message.startsWith(e.getProperty() + ": ")
                    ? message.substring(e.getProperty().length() + 2) : message;
            throw new IdWorkerConfigurationException(rename(name, e.getProperty()), rename(name, detail)
                    + " (a key unset under " + PREFIX + "." + name + " takes the value of the same key under "
                    + IdWorkerProperties.PREFIX + ")", e);
        }
    }

    /** {@code idworker.lease.ttl} → {@code idworker.generators.orders.lease.ttl}, wherever {@code text} names one. */
    static String rename(String name, String text) {
        String own = PREFIX + "." + name + ".";
        String groups = GROUP_KEYS.matcher(text).replaceAll(Matcher.quoteReplacement(own) + "$1.");
        return NAMESPACE_KEY.matcher(groups).replaceAll(Matcher.quoteReplacement(own + "namespace"));
    }

    static String property(String name, String key) {
        return PREFIX + "." + name + "." + key;
    }

    static String lifecycleBean(String name) {
        return PREFIX + "." + name + ".lifecycle";
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends AbstractIdWorker> workerClass(WorkerMode mode, @Nullable
            ClassLoader classLoader) {
        try {
            // the mode is enabled, so its worker class is on the class path (its selector checked)
            return (Class<? extends AbstractIdWorker>) ClassUtils.forName(mode.workerType(), classLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(mode.annotation() + " is enabled but " + mode.workerType()
                    + " cannot be loaded", e);
        }
    }

    private static Constructor<? extends AbstractIdWorker> constructor(
            Class<? extends AbstractIdWorker> type) {
        try {
            return type.getConstructor(ISequenceManager.class, WorkerOptions.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(type.getName() + " has no constructor (ISequenceManager, WorkerOptions)",
                    e);
        }
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }
}

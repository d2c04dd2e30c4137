package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.analyzer.AbstractInjectionFailureAnalyzer;
import org.springframework.core.Ordered;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Explains a worker of one mode injected while another mode is enabled, e.g. a {@code DBIdWorker} field under
 * {@code @EnableIdWorker(mode = CenterMode.REDIS)}: each mode registers its own worker type only, so Spring finds no
 * bean of the type asked for. The analysis names the injection point, the mode that is enabled (or that none is),
 * the worker type to inject instead and {@code IdGenerator}, which every mode's worker implements. Any other missing
 * bean is left to Spring Boot's own analyzer.
 */
public class WorkerTypeFailureAnalyzer extends AbstractInjectionFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    private static final String ABSTRACT_WORKER = "io.github.idworker.snowflake.AbstractIdWorker";

    private final @Nullable ConfigurableListableBeanFactory beanFactory;

    /** Spring Boot passes the failed context's bean factory, whose definitions tell the modes enabled. */
    public WorkerTypeFailureAnalyzer(BeanFactory beanFactory) {
        this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause,
                                                @Nullable String description) {
        Class<?> type = cause.getResolvableType() != null ? cause.getResolvableType().resolve() : null;
        if (type == null || beanFactory == null || cause.getBeanName() != null) {
            return null;
        }
        WorkerMode wanted = Arrays.stream(WorkerMode.values()).filter(m -> m.workerType().equals(type.getName()))
                .findFirst().orElse(null);
        if (wanted == null && !type.getName().equals(ABSTRACT_WORKER)) {
            return null;
        }
        List<WorkerMode> enabled = WorkerMode.enabledIn(beanFactory);
        String who = (description != null ? description : "A bean") + " required a bean of type '" + type.getName()
                + "'";
        if (enabled.isEmpty()) {
            WorkerMode mode = wanted != null ? wanted : WorkerMode.DB;
            return new FailureAnalysis(who + ", but no @EnableIdWorker is present, so no worker is registered.",
                    "Add " + mode.annotation() + " to a @Configuration class (the @SpringBootApplication class "
                            + "will do); it registers '" + mode.workerBean() + "' (" + mode.workerSimpleName() + ").",
                    cause);
        }
        if (wanted == null || enabled.contains(wanted)) {
            // a worker is there (AbstractIdWorker asked), or the mode is on and its bean is missing for another
            // reason (replaced by a bean of another type, a condition): not the case this analyzer explains
            return null;
        }
        String registered = enabled.stream().map(m -> m.annotation() + " is enabled, which registers '"
                + m.workerBean() + "' (" + m.workerSimpleName() + ")").collect(Collectors.joining("; "));
        String instead = enabled.stream().map(WorkerMode::workerSimpleName).collect(Collectors.joining(" or "));
        return new FailureAnalysis(who + ", but " + registered + ". A " + wanted.workerSimpleName()
                + " exists only under " + wanted.annotation() + ": each mode registers its own worker type.",
                "Inject " + instead + " (the worker of the enabled mode), or IdGenerator, which the worker of every "
                        + "mode implements, so that the code does not depend on the mode; or switch to "
                        + wanted.annotation() + " if the " + wanted.centre() + " centre is the one you meant.", cause);
    }

    /** Before Spring Boot's analyzer of missing beans, which would not say that another mode is enabled. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}

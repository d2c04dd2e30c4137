package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanCurrentlyInCreationException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Explains the one dependency cycle users of the starter meet: a class that declares the {@code dbSequenceManager}
 * (or {@code redisSequenceManager}, {@code zookeeperSequenceManager}) {@code @Bean} and also injects the worker. Spring must create that class to call
 * its {@code @Bean} method, the worker needs the manager, and the class cannot be finished without the worker. The
 * analysis names the class and the two ways out (a {@code static} {@code @Bean} method, or a configuration class of
 * its own); any other cycle is left to Spring Boot's own analyzer.
 */
public class SequenceManagerCycleFailureAnalyzer extends AbstractFailureAnalyzer<BeanCurrentlyInCreationException>
        implements Ordered {

    /** Each worker bean and the manager bean its factory method takes as its first parameter. */
    private static final Map<String, String> MANAGER_OF_WORKER = Map.of(
            DBIdWorkerConfig.WORKER_BEAN, DBIdWorkerConfig.SEQUENCE_MANAGER_BEAN,
            RedisIdWorkerConfig.WORKER_BEAN, RedisIdWorkerConfig.SEQUENCE_MANAGER_BEAN,
            // compile-time constants: naming them loads no class of the optional ZooKeeper configuration
            ZookeeperIdWorkerConfig.WORKER_BEAN, ZookeeperIdWorkerConfig.SEQUENCE_MANAGER_BEAN);

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BeanCurrentlyInCreationException cause) {
        Set<String> chain = new LinkedHashSet<>();
        String worker = null;
        for (Throwable t = rootFailure; t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof BeanCreationException bce && bce.getBeanName() != null) {
                chain.add(bce.getBeanName());
                // the worker could not get its manager (its factory method's first parameter)
                if (t instanceof UnsatisfiedDependencyException ude && MANAGER_OF_WORKER.containsKey(bce.getBeanName())
                        && ude.getInjectionPoint() != null && ude.getInjectionPoint().getMethodParameter() != null
                        && ude.getInjectionPoint().getMethodParameter().getParameterIndex() == 0) {
                    worker = bce.getBeanName();
                }
            }
        }
        String declaring = cause.getBeanName();
        if (worker == null || declaring == null || MANAGER_OF_WORKER.containsKey(declaring)) {
            return null;
        }
        String manager = MANAGER_OF_WORKER.get(worker);
        String description = "Bean '" + declaring + "' declares the @Bean '" + manager + "' and also needs '" + worker
                + "', which leases its worker id through '" + manager + "'. Spring has to create '" + declaring
                + "' to call its @Bean method, and cannot finish '" + declaring + "' without the worker: "
                + String.join(" -> ", chain) + " -> " + declaring + ".";
        String action = "Make the '" + manager + "' @Bean method static (a static @Bean method needs no instance of "
                + "its class), or move it into a @Configuration class of its own that does not inject the worker. "
                + "Injecting the worker where it is used, rather than where the manager is declared, also works.";
        return new FailureAnalysis(description, action, cause);
    }

    /** Before Spring Boot's general cycle analyzer, which would describe this cycle without the way out. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}

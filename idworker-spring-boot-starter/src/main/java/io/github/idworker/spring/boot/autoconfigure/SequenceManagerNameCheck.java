package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.lease.ISequenceManager;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Refuses to start an application whose own {@link ISequenceManager} bean the worker would not use. The worker of
 * each {@code @EnableIdWorker} mode leases its worker id only from the bean of one name ({@code dbSequenceManager},
 * {@code redisSequenceManager}, {@code zookeeperSequenceManager}); a manager declared under any other name, or under
 * another mode's name, would be ignored while the default centre ran beside it. Imported by
 * {@code IdWorkerConfigurationSelector} with every mode; it looks at bean definitions only, before any bean is
 * created, so no centre is contacted before the failure.
 *
 * <p>Steps:
 * <ol>
 *   <li>Find the enabled modes (their configurations' bean definitions; more than one when several
 *       {@code @EnableIdWorker} of different modes are present).</li>
 *   <li>List the beans of type {@link ISequenceManager}, the type predicted from the class or factory method (no bean
 *       is created, so a manager made by a {@code FactoryBean} is not seen).</li>
 *   <li>Leave out the names the enabled modes' workers use, and beans declared with
 *       {@code @Bean(autowireCandidate = false)}: the application's way of saying a bean is not for injection, e.g.
 *       the manager of a worker it builds itself.</li>
 *   <li>Fail on any other, naming each bean, its type and name, the enabled mode and the name that would make the
 *       worker use it (the other mode, when the bean carries that mode's name).</li>
 * </ol>
 */
class SequenceManagerNameCheck implements BeanFactoryPostProcessor {

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        List<WorkerMode> enabled = WorkerMode.enabledIn(beanFactory);
        if (enabled.isEmpty()) {
            return;
        }
        List<String> misnamed = new ArrayList<>();
        for (String name : beanFactory.getBeanNamesForType(ISequenceManager.class, true, false)) {
            boolean used = enabled.stream().anyMatch(m -> m.managerBean().equals(name));
            if (!used && (!beanFactory.containsBeanDefinition(name)
                    || beanFactory.getBeanDefinition(name).isAutowireCandidate())) {
                misnamed.add(name);
            }
        }
        if (!misnamed.isEmpty()) {
            throw failure(beanFactory, enabled, misnamed);
        }
    }

    private static ExplainedConfigurationException failure(ConfigurableListableBeanFactory beanFactory,
                                                           List<WorkerMode> enabled, List<String> misnamed) {
        String annotations = enabled.stream().map(WorkerMode::annotation).collect(Collectors.joining(" and "));
        boolean one = enabled.size() == 1;
        String workers = enabled.stream().map(m -> "'" + m.workerBean() + "'").collect(Collectors.joining(" and "));
        String managers = enabled.stream().map(m -> "'" + m.managerBean() + "'").collect(Collectors.joining(" and "));
        StringBuilder message = new StringBuilder();
        StringBuilder action = new StringBuilder();
        for (String name : misnamed) {
            WorkerMode namedFor = modeNamed(name);
            message.append(message.isEmpty() ? "" : "; ").append("bean '").append(name).append("' (")
                    .append(type(beanFactory, name)).append(") is an ISequenceManager");
            if (namedFor != null) {
                message.append(" named for ").append(namedFor.annotation()).append(", which is not enabled");
            }
            action.append(action.isEmpty() ? "" : " ").append("Rename bean '").append(name).append("' to '")
                    .append(enabled.get(0).managerBean()).append("' (the @Bean method's name or @Bean(\"")
                    .append(enabled.get(0).managerBean()).append("\")) so that it replaces the default ")
                    .append(enabled.get(0).centre()).append(" centre and the worker uses it");
            if (namedFor != null) {
                action.append(", or switch to ").append(namedFor.annotation()).append(" if the ")
                        .append(namedFor.centre()).append(" centre is the one you meant");
            }
            action.append(".");
        }
        message.append(", but the worker").append(one ? " " : "s ").append(workers)
                .append(one ? " leases its worker id from the bean named " : " lease their worker ids from the beans "
                        + "named ").append(managers).append(" only, so ").append(misnamed.size() == 1 ? "it" : "they")
                .append(" would be ignored and the default ")
                .append(enabled.stream().map(WorkerMode::centre).collect(Collectors.joining(" and ")))
                .append(" centre used beside ").append(misnamed.size() == 1 ? "it" : "them");
        action.append(" A manager that serves something other than idworker's worker is declared with "
                + "@Bean(autowireCandidate = false).");
        return new ExplainedConfigurationException(annotations, message.toString(), action.toString());
    }

    private static @Nullable WorkerMode modeNamed(String beanName) {
        for (WorkerMode mode : WorkerMode.values()) {
            if (mode.managerBean().equals(beanName)) {
                return mode;
            }
        }
        return null;
    }

    private static String type(ConfigurableListableBeanFactory beanFactory, String name) {
        Class<?> type = beanFactory.getType(name, false);
        if (type != null) {
            return type.getName();
        }
        String className = beanFactory.containsBeanDefinition(name)
                ? beanFactory.getBeanDefinition(name).getBeanClassName() : null;
        return className != null ? className : "type unknown";
    }
}

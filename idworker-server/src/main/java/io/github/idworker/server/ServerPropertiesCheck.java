package io.github.idworker.server;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Guarantees that a bad {@code idworker.server.*} fails the startup naming its key before any bean is created: an
 * unknown key or family, a centre other than redis, db or zookeeper, a value that is no boolean, or pools
 * unsigned. Without this check a misspelt centre would surface as a missing worker bean, which names nothing the
 * operator wrote.
 */
@Component
class ServerPropertiesCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    @SuppressWarnings("NullAway.Init") // set by Spring's Aware callback, which runs before postProcessBeanFactory
    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        Binder.get(environment).bindOrCreate(IdServerProperties.PREFIX, Bindable.of(IdServerProperties.class),
                new NoUnboundElementsBindHandler(BindHandler.DEFAULT)).check();
    }
}

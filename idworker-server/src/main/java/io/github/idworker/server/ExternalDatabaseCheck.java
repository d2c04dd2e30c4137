package io.github.idworker.server;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.boot.autoconfigure.DBIdWorkerConfig;
import io.github.idworker.spring.boot.autoconfigure.IdPoolsConfig;
import io.github.idworker.spring.boot.autoconfigure.RedisSequenceGeneratorsConfig;
import io.github.idworker.spring.boot.autoconfigure.SegmentIdGeneratorsConfig;
import io.github.idworker.spring.boot.autoconfigure.SerialStoreConfig;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Without profile {@code demo}: refuses to start when something that keeps numbers in the database is on and
 * {@code spring.datasource.url} does not name a database every instance shares. Without a URL Spring Boot would
 * quietly start a private in-memory H2 (the driver is on the class path for profile {@code demo}): segment
 * numbers would start again at 1 after a restart, and instances "sharing" Redis would each count on their own.
 *
 * <p>Runs after every bean definition is registered and before any bean is created, so nothing has connected
 * anywhere yet. Looks for the beans that need the database: {@code segmentAllocator} (segments, and the ranges of
 * the Redis sequences), {@code redisSequenceGenerators}, {@code serialStore} (the serial rules and the high-water
 * above which serial numbers restart after a restart or a Redis data loss), {@code poolStore} (the pools' durable
 * offsets), {@code appStore} (the applications of the ID service) and {@code dbSequenceManager} (worker
 * leases with {@code idworker.server.centre=db}). Fails with an {@link IdWorkerConfigurationException} naming {@code spring.datasource.url} when the
 * URL is missing or is an in-memory H2 URL ({@code jdbc:h2:mem:}); the URL itself is never repeated, as it may
 * carry a password.
 */
@Component
@Profile("!" + EmbeddedRedisInitializer.DEMO_PROFILE)
public class ExternalDatabaseCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    static final String URL_PROPERTY = "spring.datasource.url";

    @SuppressWarnings("NullAway.Init") // set by Spring's Aware callback, which runs before postProcessBeanFactory
    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        List<String> users = new ArrayList<>();
        if (beanFactory.containsBeanDefinition(SegmentIdGeneratorsConfig.ALLOCATOR_BEAN)) {
            users.add("segments (/ids/segment)");
        }
        if (beanFactory.containsBeanDefinition(RedisSequenceGeneratorsConfig.SEQUENCES_BEAN)) {
            users.add("the ranges of the Redis sequences (/ids/sequence)");
        }
        if (beanFactory.containsBeanDefinition(SerialStoreConfig.STORE_BEAN)) {
            users.add("the serial rules and their high-waters (/serials)");
        }
        if (beanFactory.containsBeanDefinition(IdPoolsConfig.STORE_BEAN)) {
            users.add("the ID pools' offsets (/pools)");
        }
        if (beanFactory.containsBeanDefinition(IdServiceConfig.APP_STORE_BEAN)) {
            users.add("the applications allowed to call /pools");
        }
        if (beanFactory.containsBeanDefinition(DBIdWorkerConfig.SEQUENCE_MANAGER_BEAN)) {
            users.add("the worker-id leases (idworker.server.centre=db)");
        }
        if (users.isEmpty()) {
            return;
        }
        String url = environment.getProperty(URL_PROPERTY, "").trim();
        String problem;
        if (url.isEmpty()) {
            problem = "is not set";
        } else if (url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:")) {
            problem = "names an in-memory H2 database (jdbc:h2:mem:…), private to this process";
        } else {
            return;
        }
        String kept = users.size() == 1 ? users.get(0)
                : String.join(", ", users.subList(0, users.size() - 1)) + " and " + users.get(users.size() - 1);
        throw new IdWorkerConfigurationException(URL_PROPERTY, "the server keeps " + kept
                + " in the database given by " + URL_PROPERTY + ", which " + problem + ". Numbers kept in a private "
                + "in-memory database start again after a restart and are not shared with other instances, so "
                + "the server never falls back to one. Set " + URL_PROPERTY + " (and spring.datasource.username"
                + " and spring.datasource.password) to a database every instance shares, for example "
                + "SPRING_DATASOURCE_URL=jdbc:mariadb://db.internal:3306/ids or "
                + "SPRING_DATASOURCE_URL=jdbc:postgresql://db.internal:5432/ids, with idworker's tables created there "
                + "(idworker.segment.initialize-schema=always, idworker.serial.initialize-schema=always, "
                + "idworker.pool.initialize-schema=always and idworker.service.initialize-schema=always create them); "
                + "or start with profile 'demo' for the zero-setup server with its embedded Redis and H2.");
    }
}

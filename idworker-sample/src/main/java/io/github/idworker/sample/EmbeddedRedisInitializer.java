package io.github.idworker.sample;

import io.github.idworker.spring.boot.embedded.EmbeddedRedisInitializerSupport;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Starts a Redis when no profile is active, before any bean exists, so the sample runs with nothing installed, on
 * {@code spring.data.redis.port} (6381 in {@code application.yml}, clear of a local Redis on 6379 and the ID
 * server's demo on 6380). Profile {@code db} needs no Redis, and any profile of your own (say {@code prod}) must
 * reach the Redis you configured, never a private one. Registered in {@code META-INF/spring.factories}; not part
 * of what a team copies. Ctrl+C in a terminal reaches redis-server too, so there the worker may warn that it could
 * not return its id: harmless, as this Redis forgets everything when it stops.
 */
public class EmbeddedRedisInitializer extends EmbeddedRedisInitializerSupport {

    public EmbeddedRedisInitializer() {
        super("the idworker sample", 6381);
    }

    @Override
    protected boolean wanted(ConfigurableEnvironment environment) {
        return environment.getActiveProfiles().length == 0;
    }
}

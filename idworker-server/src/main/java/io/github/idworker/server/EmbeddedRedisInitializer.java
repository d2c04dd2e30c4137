package io.github.idworker.server;

import io.github.idworker.spring.boot.embedded.EmbeddedRedisInitializerSupport;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Profiles;

/**
 * Starts a Redis for profile {@code demo} before any bean exists, so the demo needs no setup, on
 * {@code spring.data.redis.port} (6380 in {@code application-demo.yml}, clear of a local Redis on 6379).
 * Without profile {@code demo} it starts nothing: the server then uses the Redis of {@code spring.data.redis.*},
 * so a deployment never ends up on a private Redis that would split nonces, rates and pools. Registered in
 * {@code META-INF/spring.factories}.
 */
public class EmbeddedRedisInitializer extends EmbeddedRedisInitializerSupport {

    /** The zero-setup profile. */
    public static final String DEMO_PROFILE = "demo";

    public EmbeddedRedisInitializer() {
        super("the idworker demo", 6380);
    }

    @Override
    protected boolean wanted(ConfigurableEnvironment environment) {
        return environment.acceptsProfiles(Profiles.of(DEMO_PROFILE));
    }

    @Override
    protected String instead() {
        return ", or run without profile 'demo' and your own Redis";
    }
}

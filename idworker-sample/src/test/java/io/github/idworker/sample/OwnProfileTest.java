package io.github.idworker.sample;

import io.github.idworker.service.ServiceApps;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zero setup belongs to the default profile alone: with a profile of the user's own (here "staging") the sample
 * starts no embedded Redis of its own — it uses the Redis configured — and registers neither the demo application
 * nor the demo entity, so neither reaches a real table.
 */
class OwnProfileTest {

    @Test
    void theDefaultProfileRegistersTheDemo() {
        try (ConfigurableApplicationContext context = new org.springframework.boot.builder.SpringApplicationBuilder(
                IdWorkerSampleApplication.class).run("--server.port=0", "--spring.data.redis.port=0",
                "--spring.datasource.url=jdbc:h2:mem:demo-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")) {
            assertThat(context.getBean(ServiceApps.class).find("demo")).as("the demo application").isPresent();
            assertThat(context.getEnvironment().getProperty("idworker.pool.entities.user.max-per-second"))
                    .isEqualTo("500000");
        }
    }

    @Test
    void aProfileOfYourOwnGetsNeitherTheEmbeddedRedisNorTheDemo() throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.embedded()) {
            ConfigurableApplicationContext context = environment.startWithProfile("staging");
            assertThat(context.getEnvironment().getProperty("spring.data.redis.port", Integer.class))
                    .as("the configured Redis, not an embedded one").isEqualTo(environment.redisPort);
            assertThat(context.getBean(ServiceApps.class).find("demo")).as("the demo application").isEmpty();
            assertThat(context.getEnvironment().getProperty("idworker.pool.entities.user.max-per-second"))
                    .as("the demo entity").isNull();
        }
    }
}

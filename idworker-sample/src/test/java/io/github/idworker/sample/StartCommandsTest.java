package io.github.idworker.sample;

import org.junit.jupiter.api.Tag;
import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import tools.jackson.databind.JsonNode;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the sample as the documented start commands do ({@code mvn -pl idworker-sample spring-boot:run}, with
 * {@code -Dspring-boot.run.profiles=db} for profile {@code db}, which passes {@code --spring.profiles.active=db}),
 * only on free ports: each answers {@code /actuator/health} with UP and creates an order.
 */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StartCommandsTest {

    private static ConfigurableApplicationContext start(String... args) {
        return new SpringApplicationBuilder(IdWorkerSampleApplication.class).run(args);
    }

    private static OrderHttp http(ConfigurableApplicationContext context) {
        return new OrderHttp(context.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
    }

    @Test
    void withoutAProfileItRunsOnAnEmbeddedRedisAndAnInMemoryH2() throws Exception {
        try (ConfigurableApplicationContext context = start("--server.port=0", "--spring.data.redis.port=0")) {
            OrderHttp http = http(context);

            JsonNode health = http.get("/actuator/health").body();
            assertThat(health.get("status").asString()).isEqualTo("UP");
            assertThat(health.get("components").get("redis").get("status").asString()).isEqualTo("UP");
            assertThat(health.get("components").get("idWorker").get("details").has("redisIdWorker")).isTrue();
            assertThat(context.getBean(RedisIdWorker.class)).isNotNull();
            assertThat(context.getBean("serialNumbers")).isInstanceOf(RedisSerialNumbers.class);

            assertThat(http.post("{\"customer\":\"ada\",\"amount\":12.50}").status()).isEqualTo(201);
        }
    }

    @Test
    void profileDbRunsWithoutAnyRedisOnTheSamplesOwnMyBatisCentre() throws Exception {
        try (ConfigurableApplicationContext context = start("--server.port=0", "--spring.profiles.active=db")) {
            OrderHttp http = http(context);

            JsonNode health = http.get("/actuator/health").body();
            assertThat(health.get("status").asString()).isEqualTo("UP");
            assertThat(health.get("components").has("redis")).isFalse();
            assertThat(health.get("components").get("idWorker").get("details").has("dbIdWorker")).isTrue();
            assertThat(context.getBeanProvider(RedisConnectionFactory.class).getIfAvailable()).isNull();
            assertThat(context.getBean(DBIdWorker.class)).isNotNull();
            assertThat(context.getBean("dbSequenceManager")).isInstanceOf(MyBatisSequenceManager.class);
            assertThat(context.getBean("serialNumbers")).isInstanceOf(LocalSerialNumbers.class);

            assertThat(http.post("{\"customer\":\"ada\",\"amount\":12.50}").status()).isEqualTo(201);
        }
    }
}

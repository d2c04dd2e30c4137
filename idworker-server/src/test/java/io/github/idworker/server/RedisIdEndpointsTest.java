package io.github.idworker.server;

import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.RedisIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/** The default profile: embedded Redis on a free port, {@code redisIdWorker}. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class RedisIdEndpointsTest extends AbstractIdEndpointsTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    Environment environment;

    @Test
    void theWorkerIsTheRedisIdWorkerOverTheEmbeddedRedis() {
        assertThat(worker).isInstanceOf(RedisIdWorker.class).isSameAs(context.getBean("redisIdWorker"));
        assertThat(context.getBean("redisSequenceManager")).isInstanceOf(RedisSequenceManager.class);
        assertThat(context.containsBean("dbIdWorker")).isFalse();
        assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isPositive();
    }
}

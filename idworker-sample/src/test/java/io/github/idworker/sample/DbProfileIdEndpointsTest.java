package io.github.idworker.sample;

import io.github.idworker.snowflake.DBIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.ActiveProfiles;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Profile {@code db}: the {@code dbIdWorker} leasing through the sample's MyBatis manager; no Redis started. */
// a short lease: a fresh namespace's first borrow waits ttl + max-skew by design (16 s with the profile's 15 s)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {"idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=2200ms", "idworker.lease.heartbeat-interval=1100ms", "idworker.lease.max-skew=50ms",
        "idworker.lease.loss-guard=2250ms",
        "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=3s"})
@ActiveProfiles("db")
class DbProfileIdEndpointsTest extends AbstractIdEndpointsTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    ConfigurableEnvironment environment;

    @Autowired
    DataSource dataSource;

    @Test
    void theWorkerIsTheDbIdWorkerLeasingThroughTheMyBatisManager() {
        assertThat(worker).isInstanceOf(DBIdWorker.class).isSameAs(context.getBean("dbIdWorker"));
        assertThat(context.getBean("dbSequenceManager")).isInstanceOf(MyBatisSequenceManager.class);
        assertThat(context.containsBean("redisIdWorker")).isFalse();
        assertThat(environment.getPropertySources().contains("embeddedRedis")).as("embedded Redis started").isFalse();

        String owner = JdbcClient.create(dataSource)
                .sql("SELECT owner_token FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?")
                .params(worker.namespace(), worker.currentLease().workerId())
                .query(String.class).single();
        assertThat(owner).isEqualTo(worker.currentLease().owner());
    }

    @Test
    void segmentsWorkInProcessButSequencesAnswer503NamingTheMissingRedis() throws Exception {
        assertThat(context.containsBean("segmentIdGenerators")).isTrue();
        assertThat(context.containsBean("redisSequenceGenerators")).isFalse();
        assertThat(SampleHttp.get(port, "/ids/segment/order?count=3").ids()).hasSize(3).isSorted();

        SampleHttp.Response sequence = SampleHttp.get(port, "/ids/sequence/order?count=3");
        assertThat(sequence.status()).isEqualTo(503);
        assertThat(sequence.contentType()).startsWith("application/problem+json");
        assertThat(sequence.body().get("detail").asString()).contains("needs Redis").contains("profile 'db'")
                .contains("/ids/segment/order");
        // the 400 rules come first, as on every endpoint
        assertThat(SampleHttp.get(port, "/ids/sequence/order?count=0").status()).isEqualTo(400);
    }
}

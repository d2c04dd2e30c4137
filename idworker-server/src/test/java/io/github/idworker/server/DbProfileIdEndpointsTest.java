package io.github.idworker.server;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code idworker.server.centre=db} with the sequence family off and local serials, the server for a site without
 * Redis for its IDs: the {@code dbIdWorker} leasing from the database through the starter's
 * {@link JdbcSequenceManager}; {@code /ids/sequence} is not served (404).
 */
// a short lease: a fresh namespace's first borrow waits ttl + max-skew by design (16 s with the profile's 15 s)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {"idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=2200ms", "idworker.lease.heartbeat-interval=1100ms", "idworker.lease.max-skew=50ms",
        "idworker.lease.loss-guard=2250ms",
        "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=3s",
        "idworker.server.centre=db", "idworker.server.families.sequence.enabled=false",
        "idworker.server.families.serial.mode=local"})
class DbProfileIdEndpointsTest extends AbstractIdEndpointsTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    DataSource dataSource;

    @Test
    void theWorkerIsTheDbIdWorkerLeasingThroughTheJdbcManager() {
        assertThat(worker).isInstanceOf(DBIdWorker.class).isSameAs(context.getBean("dbIdWorker"));
        assertThat(context.getBean("dbSequenceManager")).isInstanceOf(JdbcSequenceManager.class);
        assertThat(context.containsBean("redisIdWorker")).isFalse();

        String owner = JdbcClient.create(dataSource)
                .sql("SELECT owner_token FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?")
                .params(worker.namespace(), worker.currentLease().workerId())
                .query(String.class).single();
        assertThat(owner).isEqualTo(worker.currentLease().owner());
    }

    @Test
    void segmentsWorkInProcessAndTheSequenceFamilyThatIsOffAnswers404() throws Exception {
        assertThat(context.containsBean("segmentIdGenerators")).isTrue();
        assertThat(context.containsBean("redisSequenceGenerators")).isFalse();
        assertThat(SampleHttp.get(port, "/ids/segment/order?count=3").ids()).hasSize(3).isSorted();

        SampleHttp.Response sequence = SampleHttp.get(port, "/ids/sequence/order?count=3");
        assertThat(sequence.status()).isEqualTo(404);
        assertThat(sequence.contentType()).startsWith("application/problem+json");
        assertThat(context.containsBean("sequenceController")).isFalse();
    }
}

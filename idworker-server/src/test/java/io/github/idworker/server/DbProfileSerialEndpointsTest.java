package io.github.idworker.server;

import io.github.idworker.serial.LocalSerialNumbers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /serials/{rule}} with {@code idworker.server.families.serial.mode=local}: serial numbers run in process
 * ({@code SerialMode.LOCAL}) over the database, and answer like the strict ones except that numbers of several
 * instances interleave.
 */
// a short lease: a fresh namespace's first borrow waits ttl + max-skew by design (16 s with the profile's 15 s)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {"idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=2200ms", "idworker.lease.heartbeat-interval=1100ms", "idworker.lease.max-skew=50ms",
        "idworker.lease.loss-guard=2250ms",
        "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=3s",
        "idworker.server.centre=db", "idworker.server.families.serial.mode=local"})
class DbProfileSerialEndpointsTest extends AbstractSerialEndpointsTest {

    @Autowired
    ApplicationContext context;

    @Test
    void serialsComeFromTheLocalNumbers() {
        assertThat(context.getBean("serialNumbers")).isInstanceOf(LocalSerialNumbers.class).isSameAs(serials);
    }
}

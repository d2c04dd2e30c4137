package io.github.idworker.test.fault;

import io.github.idworker.test.jdbc.JdbcSequenceManagerStore;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;

/** The fault tests in the default build: worker JVMs over an H2 database served over TCP by this JVM. */
class H2FaultInjectionTest extends AbstractFaultInjectionTest {

    private static Server server;
    private static String url;
    private static JdbcSequenceManagerStore store;

    @BeforeAll
    static void startDatabase() throws Exception {
        int port = RedisClusterSupport.freePort();
        server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
        url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:faults;DB_CLOSE_DELAY=-1";
        store = new JdbcSequenceManagerStore(url, "sa", "");
    }

    @AfterAll
    static void stopDatabase() {
        store.close();
        server.stop();
    }

    @Override
    protected List<String> centreArgs() {
        return List.of("centre=jdbc", "url=" + url, "user=sa");
    }

    @Override
    protected int rate() {
        return 20_000;
    }

    @Override
    protected long minTotalIds() {
        return 200_000;
    }

    @Override
    protected void deleteNamespace(String namespace) {
        store.deleteNamespace(namespace);
    }
}

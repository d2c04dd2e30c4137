package io.github.idworker.server;

/** The failover test over two H2 TCP servers and two embedded Redis: the default build. */
class ClientFailoverTest extends AbstractClientFailoverTest {

    @Override
    ServiceEnvironment environment(int index) throws Exception {
        return ServiceEnvironment.embedded();
    }
}

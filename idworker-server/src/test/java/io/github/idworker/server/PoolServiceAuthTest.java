package io.github.idworker.server;

/** The signed pool endpoint over an H2 TCP server and an embedded Redis: the default build. */
class PoolServiceAuthTest extends AbstractPoolServiceAuthTest {

    @Override
    ServiceEnvironment environment() throws Exception {
        return ServiceEnvironment.embedded();
    }
}

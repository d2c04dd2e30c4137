package io.github.idworker.server;

/**
 * The soak of the default build: each environment an H2 TCP server in this JVM and a {@code redis-server} process
 * of its own on free loopback ports; no service of the machine is used.
 */
class ServiceSoakIT extends AbstractServiceSoak {

    @Override
    ServiceEnvironment environment(int index) throws Exception {
        return ServiceEnvironment.h2WithOwnRedis();
    }

    @Override
    String stores() {
        return "H2 TCP + redis-server per environment";
    }
}

package io.github.idworker.test.fault;

import org.junit.jupiter.api.Tag;

/**
 * The single-server ZooKeeper fault tests (restart with its data, replacement by an empty server, and the shared
 * faults) with the real-services volume: at least two million ids a run from four or more processes.
 */
@Tag("real-services")
class RealZookeeperFaultInjectionTest extends ZookeeperFaultInjectionTest {

    @Override
    protected int rate() {
        return 100_000;
    }

    @Override
    protected long minTotalIds() {
        return 2_000_000;
    }
}

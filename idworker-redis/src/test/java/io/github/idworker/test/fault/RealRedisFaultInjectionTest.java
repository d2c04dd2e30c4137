package io.github.idworker.test.fault;

import org.junit.jupiter.api.Tag;

/** The Redis fault tests with the real-services volume: at least 600 000 ids a run, on redis-server 7. */
@Tag("real-services")
class RealRedisFaultInjectionTest extends RedisFaultInjectionTest {

    @Override
    protected int rate() {
        return 150_000;
    }

    @Override
    protected long minTotalIds() {
        return 600_000;
    }
}

package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** The in-process segment generator with ranges from PostgreSQL. */
@Tag("real-services")
class PostgreSqlSegmentIdGeneratorTest extends SegmentIdGeneratorTest {

    @Override
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}

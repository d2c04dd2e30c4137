package io.github.idworker.test.segment;

class H2PostgreSqlModeSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(
                "jdbc:h2:mem:segment-pgmode;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1", "sa", "");
    }
}

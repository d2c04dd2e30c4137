package io.github.idworker.test.segment;

class H2MySqlModeSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-mysqlmode;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
    }
}

package io.github.idworker.test.segment;

/** The contract over a pool that hands out connections with auto-commit off, in a schema-qualified table. */
class H2ManualCommitSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-manual;DB_CLOSE_DELAY=-1", "sa", "",
                "PUBLIC.ids_segment_manual", true);
    }
}

package io.github.idworker.test.segment;

class H2SegmentSchemaUpgradeTest extends AbstractSegmentSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return "jdbc:h2:mem:segment-upgrade;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1";
    }

    @Override
    protected String user() {
        return "sa";
    }
}

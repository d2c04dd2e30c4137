package io.github.idworker.test.pool;

class H2PoolSchemaUpgradeTest extends AbstractPoolSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return "jdbc:h2:mem:pool-upgrade;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1";
    }

    @Override
    protected String user() {
        return "sa";
    }
}

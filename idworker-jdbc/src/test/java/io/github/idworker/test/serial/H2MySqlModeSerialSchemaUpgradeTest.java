package io.github.idworker.test.serial;

class H2MySqlModeSerialSchemaUpgradeTest extends AbstractSerialSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return "jdbc:h2:mem:serial-upgrade-mysql;MODE=MySQL;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1";
    }

    @Override
    protected String user() {
        return "sa";
    }
}

package io.github.idworker.test.serial;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** Local serials with rules and high-waters in PostgreSQL. */
@Tag("real-services")
class PostgreSqlLocalSerialNumbersTest extends LocalSerialNumbersTest {
    @Override
    protected JdbcSerialStoreStore createStore() {
        return new JdbcSerialStoreStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}

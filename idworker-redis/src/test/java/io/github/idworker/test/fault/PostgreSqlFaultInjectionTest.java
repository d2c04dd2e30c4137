package io.github.idworker.test.fault;

import io.github.idworker.test.RealServices;

class PostgreSqlFaultInjectionTest extends AbstractJdbcRealFaultInjectionTest {
    @Override
    protected String url() {
        return RealServices.POSTGRES_URL;
    }

    @Override
    protected String user() {
        return RealServices.POSTGRES_USER;
    }

    @Override
    protected String[] stopCommand() {
        return new String[] {"sh", "-c", "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main stop -m fast"};
    }

    @Override
    protected String[] startCommand() {
        return new String[] {"sh", "-c", "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"};
    }
}

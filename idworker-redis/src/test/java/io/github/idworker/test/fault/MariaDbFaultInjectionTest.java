package io.github.idworker.test.fault;

import io.github.idworker.test.RealServices;

class MariaDbFaultInjectionTest extends AbstractJdbcRealFaultInjectionTest {
    @Override
    protected String url() {
        return RealServices.MARIADB_URL;
    }

    @Override
    protected String user() {
        return RealServices.MARIADB_USER;
    }

    @Override
    protected String[] stopCommand() {
        return new String[] {"sh", "-c", "start-stop-daemon --stop --oknodo --retry 30 --exec /usr/sbin/mariadbd"};
    }

    @Override
    protected String[] startCommand() {
        return new String[] {"sh", "-c", "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd"};
    }
}

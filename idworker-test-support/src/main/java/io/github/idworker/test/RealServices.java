package io.github.idworker.test;

/**
 * Where the real-services profile finds its stores (MariaDB, PostgreSQL, Redis), for the kit's own tests and for
 * projects that run the kit against the same services; each can be moved with a system property or an
 * environment variable of the same name in upper case (for example {@code IDWORKER_MARIADB_URL}).
 */
public final class RealServices {

    public static final String MARIADB_URL = setting("idworker.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test");
    public static final String MARIADB_USER = setting("idworker.mariadb.user", "root");
    public static final String POSTGRES_URL = setting("idworker.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String POSTGRES_USER = setting("idworker.postgres.user", "postgres");
    public static final String REDIS_HOST = setting("idworker.redis.host", "127.0.0.1");
    public static final int REDIS_PORT = Integer.parseInt(setting("idworker.redis.port", "6379"));

    private RealServices() {
    }

    private static String setting(String name, String fallback) {
        String v = System.getProperty(name);
        if (v == null) {
            v = System.getenv(name.toUpperCase().replace('.', '_'));
        }
        return v == null || v.isBlank() ? fallback : v;
    }
}

package io.github.idworker.test.jdbc;

import io.github.idworker.test.RealServices;

/** A database the JDBC tests run against: its URL and user (password empty). */
record Database(String url, String user) {

    /** This machine's MariaDB ({@link RealServices}); tests using it are tagged {@code real-services}. */
    static final Database MARIADB = new Database(RealServices.MARIADB_URL, RealServices.MARIADB_USER);

    /** This machine's PostgreSQL ({@link RealServices}); tests using it are tagged {@code real-services}. */
    static final Database POSTGRESQL = new Database(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER);

    /** An in-memory H2 database that lives as long as this JVM, with extra URL settings such as {@code LOCK_TIMEOUT=60000}. */
    static Database h2(String name, String... settings) {
        StringBuilder url = new StringBuilder("jdbc:h2:mem:").append(name);
        for (String setting : settings) {
            url.append(';').append(setting);
        }
        return new Database(url.append(";DB_CLOSE_DELAY=-1").toString(), "sa");
    }
}

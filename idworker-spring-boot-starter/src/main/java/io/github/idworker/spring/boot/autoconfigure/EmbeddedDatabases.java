package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;

/**
 * Whether a {@link DataSource} is an embedded database in Spring Boot's sense
 * ({@link EmbeddedDatabaseConnection#isEmbedded(DataSource)}: an in-memory H2, HSQLDB or Derby; a file-based H2 or
 * any server is not), so {@code initialize-schema: embedded} means what {@code spring.sql.init.mode: embedded}
 * means. Without spring-boot-jdbc and spring-jdbc on the class path no data source counts as embedded.
 */
final class EmbeddedDatabases {

    private static final boolean BOOT_JDBC_PRESENT =
            ClassUtils.isPresent("org.springframework.boot.jdbc.EmbeddedDatabaseConnection", null)
                    && ClassUtils.isPresent("org.springframework.jdbc.core.JdbcTemplate", null);

    private EmbeddedDatabases() {
    }

    static boolean isEmbedded(DataSource dataSource) {
        // Boot's class is touched only when present, so this class loads without spring-boot-jdbc
        return BOOT_JDBC_PRESENT && BootCheck.isEmbedded(dataSource);
    }

    private static final class BootCheck {

        static boolean isEmbedded(DataSource dataSource) {
            return EmbeddedDatabaseConnection.isEmbedded(dataSource);
        }
    }
}

package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;

/**
 * Finds the one {@link DataSource} a JDBC store of idworker runs on (the only bean, or the one marked
 * {@code @Primary}, the rule of {@code @ConditionalOnSingleCandidate}), or fails saying what the application
 * lacks: Spring Boot's JDBC support (spring-boot-starter-jdbc) when it is not on the class path, else a
 * {@code spring.datasource.url}, else a {@code @Primary} among several data sources.
 */
final class SingleDataSource {

    /** Spring Boot's JDBC auto-configuration and spring-jdbc, both brought by spring-boot-starter-jdbc. */
    private static final String[] BOOT_JDBC_CLASSES = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType"};

    private SingleDataSource() {
    }

    /**
     * @param user what needs the data source, e.g. {@code @EnableSegmentIdGenerators}
     * @param replacement the bean that would make the data source unnecessary, e.g.
     *        {@code a SegmentAllocator bean named segmentAllocator}
     * @throws MissingDataSourceException when there is no single data source
     */
    static DataSource require(ObjectProvider<DataSource> dataSources, String user, String replacement) {
        DataSource dataSource = dataSources.getIfUnique();
        if (dataSource != null) {
            return dataSource;
        }
        long found = dataSources.stream().count();
        if (found > 1) {
            throw new MissingDataSourceException("spring.datasource.url", user + " needs one DataSource bean, found "
                    + found + " and none marked @Primary (or " + replacement + ")",
                    "Mark the DataSource bean idworker should use @Primary, or declare " + replacement + ".");
        }
        if (!bootJdbcPresent()) {
            throw new MissingDataSourceException(user, "needs a DataSource bean and the application has none: "
                    + "spring-boot-starter-jdbc is not among its dependencies, so Spring Boot creates no DataSource "
                    + "from spring.datasource.* (or " + replacement + ")",
                    "Add spring-boot-starter-jdbc and a JDBC driver to the application's dependencies and set "
                            + "spring.datasource.url, declare a DataSource bean yourself, or declare " + replacement
                            + ".");
        }
        throw new MissingDataSourceException("spring.datasource.url", user + " needs a DataSource bean and Spring "
                + "Boot created none (or " + replacement + ")", "Set spring.datasource.url (with username and password) to your database, "
                + "declare a DataSource bean, or declare " + replacement + ".");
    }

    private static boolean bootJdbcPresent() {
        for (String name : BOOT_JDBC_CLASSES) {
            // the default (context) class loader, as the selectors use: the application's, not the starter's
            if (!ClassUtils.isPresent(name, null)) {
                return false;
            }
        }
        return true;
    }

    /** No single data source; carries the action the failure analysis shows. */
    static final class MissingDataSourceException extends ExplainedConfigurationException {

        MissingDataSourceException(String property, String message, String action) {
            super(property, message, action);
        }
    }
}

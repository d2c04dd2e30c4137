package io.github.idworker.spring.boot.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every DDL file idworker-core ships runs as it is, as {@code spring.sql.init} runs it, on H2 in the mode of its
 * database, and creates the tables its store checks for. MariaDB and PostgreSQL themselves:
 * {@link RealServicesShippedSchemaTest}.
 */
class ShippedSchemaTest {

    static Stream<Arguments> filesAndModes() {
        return Arrays.stream(ShippedSchemas.values()).flatMap(schema -> Stream.of(
                Arguments.of(schema, "h2", ""),
                Arguments.of(schema, "mysql", ";MODE=MySQL;DATABASE_TO_LOWER=TRUE"),
                Arguments.of(schema, "postgresql", ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE")));
    }

    @ParameterizedTest(name = "{0} schema-{1}.sql")
    @MethodSource("filesAndModes")
    void aShippedFileRunsAsItIsAndCreatesTheTablesItsStoreUses(ShippedSchemas schema, String database, String mode)
            throws Exception {
        String text = new String(new ClassPathResource(schema.location(database)).getInputStream().readAllBytes(),
                StandardCharsets.UTF_8);
        assertThat(text).as("no placeholder left for a tool to trip over").doesNotContain("${");
        SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
                "jdbc:h2:mem:" + UUID.randomUUID() + mode + ";DB_CLOSE_DELAY=-1", "sa", "");
        schema.runTwiceAndVerify(dataSource, database);
    }
}

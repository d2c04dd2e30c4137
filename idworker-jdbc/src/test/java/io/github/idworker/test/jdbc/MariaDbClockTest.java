package io.github.idworker.test.jdbc;

import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The centre clock of MySQL and MariaDB counts milliseconds since 1970 in UTC whatever the session's time zone,
 * also in the hour a daylight-saving change repeats. The session's clock is pinned with {@code SET timestamp}.
 * Named zones need the server's time-zone tables ({@code mariadb-tzinfo-to-sql /usr/share/zoneinfo | mariadb
 * -uroot mysql}; {@code .ci/run} loads them).
 */
@Tag("real-services")
class MariaDbClockTest {

    @ParameterizedTest(name = "{0} at {1}")
    @CsvSource({
            // 2025-10-26T00:30:00.250Z = 02:30:00.250 CEST, the first 02:30 of the night in Berlin
            "Europe/Berlin, 1761438600250",
            // 2025-10-26T01:30:00.250Z = 02:30:00.250 CET, the repeated hour after clocks went back
            "Europe/Berlin, 1761442200250",
            // 2025-03-30T01:30:00.750Z = 03:30:00.750 CEST, just after clocks went forward
            "Europe/Berlin, 1743298200750",
            // 2025-11-02T05:30:00.500Z = 01:30:00.500 EDT, the first 01:30 in New York; 06:30Z is the second
            "America/New_York, 1762061400500",
            "America/New_York, 1762065000500",
            "+09:00, 1761442200250",
            "SYSTEM, 1761442200250"})
    void nowMillisIsUtcEpochMillisInEverySessionTimeZone(String zone, long epochMillis) throws SQLException {
        try (Connection c = DriverManager.getConnection(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
             Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT CONVERT_TZ('2025-10-26 01:30:00', 'UTC', 'Europe/Berlin')")) {
                rs.next();
                assertThat(rs.getString(1)).as("time-zone tables loaded (mariadb-tzinfo-to-sql, see .ci/run)")
                        .isNotNull();
            }
            st.execute("SET time_zone = '" + zone + "'");
            st.execute("SET timestamp = " + epochMillis / 1000 + "." + String.format("%03d", epochMillis % 1000));
            try (ResultSet rs = st.executeQuery("SELECT " + JdbcDialect.MYSQL.nowMillis())) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(epochMillis);
            }
        }
    }
}

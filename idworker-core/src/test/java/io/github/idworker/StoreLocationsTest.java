package io.github.idworker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Every shape of store location idworker may print loses its secrets and keeps the rest. */
class StoreLocationsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            jdbc:h2:mem:test;DB_CLOSE_DELAY=-1;PASSWORD=Sup3rS3cret                   | jdbc:h2:mem:test;DB_CLOSE_DELAY=-1;PASSWORD=***
            jdbc:h2:mem:test;password=Sup3rS3cret;DB_CLOSE_DELAY=-1                   | jdbc:h2:mem:test;password=***;DB_CLOSE_DELAY=-1
            jdbc:h2:tcp://db:9092/~/ids;USER=sa;PASSWORD=Sup3rS3cret;MODE=MySQL        | jdbc:h2:tcp://db:9092/~/ids;USER=sa;PASSWORD=***;MODE=MySQL
            jdbc:mysql://db:3306/ids?user=app&password=Sup3rS3cret&useSSL=true        | jdbc:mysql://db:3306/ids?user=app&password=***&useSSL=true
            jdbc:mariadb://db/ids?PWD=Sup3rS3cret                                     | jdbc:mariadb://db/ids?PWD=***
            jdbc:mysql://app:Sup3rS3cret@db:3306/ids                                  | jdbc:mysql://***@db:3306/ids
            jdbc:postgresql://db/ids?sslmode=verify-full&sslpassword=Sup3rS3cret      | jdbc:postgresql://db/ids?sslmode=verify-full&sslpassword=***
            jdbc:postgresql://db/ids?password=Sup3rS3cret                             | jdbc:postgresql://db/ids?password=***
            jdbc:mysql://db/ids?trustCertificateKeyStorePassword=Sup3rS3cret&x=1     | jdbc:mysql://db/ids?trustCertificateKeyStorePassword=***&x=1
            jdbc:sqlserver://db;user=app;password={Sup3r;S3cret};encrypt=true         | jdbc:sqlserver://db;user=app;password=***;encrypt=true
            jdbc:oracle:thin:app/pw@db:1521/ids?secret=Sup3rS3cret                    | jdbc:oracle:thin:app/pw@db:1521/ids?secret=***
            jdbc:snowflake://acct.snowflakecomputing.com/?token=Sup3rS3cret&db=ids    | jdbc:snowflake://acct.snowflakecomputing.com/?token=***&db=ids
            jdbc:foo://db/ids?Passwd=Sup3rS3cret                                      | jdbc:foo://db/ids?Passwd=***
            jdbc:foo://db/ids?passWORD = Sup3rS3cret                                  | jdbc:foo://db/ids?passWORD = ***
            jdbc:foo://db/ids?apiKey=Sup3rS3cret&access_key=Sup3rS3cret               | jdbc:foo://db/ids?apiKey=***&access_key=***
            redis://default:Sup3rS3cret@cache:6379/0                                  | redis://***@cache:6379/0
            rediss://:Sup3rS3cret@cache:6380                                          | rediss://***@cache:6380
            redis://Sup3rS3cret@cache                                                 | redis://***@cache
            redis://us:S3cr@t@cache:6379                                              | redis://***@cache:6379
            redis-sentinel://:Sup3rS3cret@s1:26379,s2:26379/0#mymaster                | redis-sentinel://***@s1:26379,s2:26379/0#mymaster
            redis://cache:6379?password=Sup3rS3cret                                   | redis://cache:6379?password=***
            """)
    void secretsAreMaskedAndTheRestKept(String location, String redacted) {
        assertThat(StoreLocations.redact(location)).isEqualTo(redacted);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:h2:mem:test;DB_CLOSE_DELAY=-1", "jdbc:postgresql://db:5432/ids?user=app&ssl=true",
            "127.0.0.1:6379", "cluster [127.0.0.1:7000, 127.0.0.1:7001]", "redis://cache:6379/0",
            "jdbc:mysql://db/ids?user=app&passwordCharacterEncoding", "table idworker_segment at jdbc:h2:mem:x",
            "(conn=12) Access denied for user 'app'@'10.0.0.5' (using password: YES)",
            "Access denied for user 'root'@'localhost' (Using password: NO)",
            "refused the login of user 'app' (using password: YES), so idworker could not connect"})
    void locationsWithoutSecretsStayAsTheyAre(String location) {
        assertThat(StoreLocations.redact(location)).isEqualTo(location);
    }

    /** Only MySQL's phrase keeps its YES: a password that happens to be "YES" elsewhere is masked. */
    @Test
    void aPasswordYesOutsideMysqlsPhraseIsMasked() {
        assertThat(StoreLocations.redact("jdbc:h2:mem:x;PASSWORD=YES")).isEqualTo("jdbc:h2:mem:x;PASSWORD=***");
        assertThat(StoreLocations.redact("password: NO")).isEqualTo("password: ***");
    }

    @ParameterizedTest
    @NullAndEmptySource
    void nothingStaysNothing(String location) {
        assertThat(StoreLocations.redact(location)).isEqualTo(location);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "Cannot open jdbc:mysql://db/ids?user=app&password=Sup3rS3cret: Access denied for user 'app'",
            "connect failed (url 'jdbc:h2:tcp://db/x;PASSWORD=Sup3rS3cret')",
            "Unable to connect to redis://default:Sup3rS3cret@cache:6379 after 3 attempts",
            "bad setting spring.datasource.password=Sup3rS3cret in the environment",
            "property \"password\" = \"Sup3rS3cret\" rejected",
            "login refused (using password: Sup3rS3cret)"})
    void driverMessagesQuotingALocationLoseItsSecrets(String message) {
        String redacted = StoreLocations.redact(message);
        assertThat(redacted).doesNotContain("Sup3rS3cret").contains(StoreLocations.MASK);
    }
}

package io.github.idworker.server;

import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP contract of {@code /serials/{rule}}, run over a real server for each mode the sample uses, with the
 * two rules of {@code application.yml}: {@code order} ({@code ORD + yyyyMMdd + 6 digits}, daily in Asia/Shanghai)
 * and {@code invoice} ({@code INV- + 8 digits}). The database has a password, which no answer may show.
 */
abstract class AbstractSerialEndpointsTest {

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
    static final String DATABASE_PASSWORD = "Pw-" + UUID.randomUUID();

    @LocalServerPort
    int port;

    @Autowired
    SerialNumbers serials;

    @Autowired
    SerialStore store;

    @DynamicPropertySource
    static void databasePassword(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.password", () -> DATABASE_PASSWORD);
    }

    SampleHttp.Response get(String path) throws Exception {
        return SampleHttp.get(port, path);
    }

    static String today() {
        return LocalDate.now(SHANGHAI).format(DateTimeFormatter.BASIC_ISO_DATE);
    }

    @Test
    void orderPrintsOrdTodayInShanghaiAndSixDigits() throws Exception {
        String before = today();
        SampleHttp.Response response = get("/serials/order");
        String after = today();
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.contentType()).startsWith("application/json");
        List<String> serials = response.strings();
        assertThat(serials).hasSize(1);
        assertThat(serials.get(0)).matches("ORD\\d{8}\\d{6}");
        assertThat(serials.get(0).substring(3, 11)).as("the date in Asia/Shanghai").isIn(before, after);
    }

    @Test
    void invoicePrintsInvAndEightDigits() throws Exception {
        List<String> serials = get("/serials/invoice?count=3").strings();
        assertThat(serials).hasSize(3).allMatch(s -> s.matches("INV-\\d{8}")).isSorted().doesNotHaveDuplicates();
    }

    @ParameterizedTest(name = "{0} count={1}")
    @CsvSource({"order,2", "order,4096", "order,10000", "invoice,1", "invoice,10000"})
    void returnsCountDistinctIncreasingSerials(String rule, int count) throws Exception {
        List<String> serials = get("/serials/" + rule + "?count=" + count).strings();
        // one width within a rule and a date, so string order is number order
        assertThat(serials).hasSize(count).isSorted().doesNotHaveDuplicates();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"order", "invoice"})
    void eachRequestContinuesAboveThePreviousOne(String rule) throws Exception {
        String previous = null;
        for (int i = 0; i < 20; i++) {
            List<String> serials = get("/serials/" + rule + "?count=" + (1 + i * 97)).strings();
            assertThat(serials).isSorted();
            if (previous != null && samePeriod(previous, serials.get(0))) {
                assertThat(serials.get(0)).isGreaterThan(previous);
            }
            previous = serials.get(serials.size() - 1);
        }
    }

    /** Whether two serials of one rule belong to one period: rule {@code order} starts again every day. */
    static boolean samePeriod(String a, String b) {
        return !a.startsWith("ORD") || a.substring(3, 11).equals(b.substring(3, 11));
    }

    @ParameterizedTest(name = "count={0}")
    @ValueSource(strings = {"0", "10001", "abc", "-1", "", "99999999999"})
    void aCountOutsideOneToTenThousandIsABadRequestNamingCount(String count) throws Exception {
        SampleHttp.Response response = get("/serials/order?count=" + count);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.body().get("parameter").asString()).isEqualTo("count");
        assertThat(response.body().get("detail").asString()).contains("count").contains("from 1 to 10000");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"a%20b", "%7Bbad%7D", "a.b", "a%2Bb",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})
    void aRuleNameOutsideTheAllowedCharactersIsABadRequestNamingRule(String rule) throws Exception {
        SampleHttp.Response response = get("/serials/" + rule);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body().get("parameter").asString()).isEqualTo("rule");
        assertThat(response.body().get("detail").asString()).contains("rule").contains("1 to 64");
    }

    @Test
    void anUnknownRuleIsNotFoundNamingItAndNoCredential() throws Exception {
        for (String path : List.of("/serials/no-such-rule", "/serials/no-such-rule?count=5")) {
            SampleHttp.Response response = get(path);
            assertThat(response.status()).as(path).isEqualTo(404);
            assertThat(response.contentType()).startsWith("application/problem+json");
            assertThat(response.body().get("title").asString()).isEqualTo("Unknown serial rule");
            assertThat(response.body().get("rule").asString()).isEqualTo("no-such-rule");
            assertThat(response.body().get("detail").asString()).contains("'no-such-rule'")
                    .contains("idworker.serial.rules.no-such-rule");
            assertThat(response.body().toString()).doesNotContain(DATABASE_PASSWORD);
        }
    }

    @Test
    void theRulesOfApplicationYmlAreInTheRuleTable() {
        SerialRule order = store.find("order").orElseThrow();
        assertThat(order.prefix()).isEqualTo("ORD");
        assertThat(order.datePattern()).isEqualTo("yyyyMMdd");
        assertThat(order.width()).isEqualTo(6);
        assertThat(order.reset()).isEqualTo(SerialReset.DAILY);
        assertThat(order.zone()).isEqualTo(SHANGHAI);
        SerialRule invoice = store.find("invoice").orElseThrow();
        assertThat(invoice.prefix()).isEqualTo("INV-");
        assertThat(invoice.datePattern()).isEmpty();
        assertThat(invoice.width()).isEqualTo(8);
        assertThat(invoice.reset()).isEqualTo(SerialReset.NEVER);
    }
}

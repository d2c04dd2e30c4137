package io.github.idworker.client;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The small JSON reader: exactly the shapes the service answers with, and nothing it should not accept. */
class JsonTest {

    @Test
    void anIdArrayOfExactlyTheCountAsked() {
        assertThat(Json.idArray("[4,6,8]", 3)).containsExactly(4, 6, 8);
        assertThat(Json.idArray(" \r\n\t[ 0 , 9223372036854775807 ]\n", 2)).containsExactly(0, Long.MAX_VALUE);
        assertThat(Json.idArray("[]", 0)).isEmpty();
    }

    @Test
    void anythingElseIsMalformedWithWhereAndWhat() {
        assertMalformed("", 1, "expected '[' at character 0, found the end");
        assertMalformed("[1,2", 2, "expected ',' or ']' at character 4, found the end");
        assertMalformed("[1,2]", 3, "2 IDs where 3 were asked for");
        assertMalformed("[1,2,3]", 2, "expected more than the 2 IDs asked for at character 5, found '3'");
        assertMalformed("[1,2,1]", 3, "ID 1 appears twice");
        assertMalformed("[-1]", 1, "expected a non-negative ID at character 1, found '-'");
        assertMalformed("[1.0]", 1, "expected an integer ID without fraction or exponent at character 2, found '.'");
        assertMalformed("[1E2]", 1, "expected an integer ID without fraction or exponent at character 2, found 'E'");
        assertMalformed("[007]", 1, "expected no leading zero at character 1, found '0'");
        assertMalformed("[9223372036854775808]", 1,
                "expected an ID of at most 9223372036854775807 at character 1, found '9'");
        assertMalformed("[\"1\"]", 1, "expected a digit at character 1, found '\"'");
        assertMalformed("[1,,2]", 2, "expected a digit at character 3, found ','");
        assertMalformed("[1,]", 1, "expected more than the 1 IDs asked for at character 3, found ']'");
        assertMalformed("[1] [2]", 1, "expected the end of the body at character 4, found '['");
        assertMalformed("[1\u00002]", 2, "expected ',' or ']' at character 2, found '\\u0000'");
        assertMalformed("{\"ids\":[1]}", 1, "expected '[' at character 0, found '{'");
    }

    private static void assertMalformed(String body, int expected, String message) {
        assertThatThrownBy(() -> Json.idArray(body, expected)).as(body)
                .isInstanceOf(Json.MalformedJsonException.class).hasMessage(message);
    }

    @Test
    void aProblemDocumentWithEveryKindOfValue() {
        Map<String, Object> problem = Json.object("{\"type\":\"about:blank\",\"title\":\"Too \\\"Many\\\" \\u00e9\\n\","
                + "\"status\":429,\"retryAfterMillis\":1500.5,\"big\":12345678901234567890,\"neg\":-3e2,"
                + "\"ok\":true,\"no\":false,\"none\":null,\"list\":[1,\"a\",[]],\"nested\":{\"a\":{}},\"title2\":\"\\/\\\\\"}");
        assertThat(problem).containsEntry("type", "about:blank").containsEntry("title", "Too \"Many\" é\n")
                .containsEntry("status", 429L).containsEntry("retryAfterMillis", 1500.5)
                .containsEntry("big", 1.2345678901234567E19).containsEntry("neg", -300.0)
                .containsEntry("ok", true).containsEntry("no", false).containsEntry("none", null)
                .containsEntry("list", List.of(1L, "a", List.of())).containsEntry("nested", Map.of("a", Map.of()))
                .containsEntry("title2", "/\\");
        assertThat(Json.object(" {} ")).isEmpty();
        assertThat(Json.object("{\"a\":1,\"a\":2}")).containsEntry("a", 2L);
    }

    @Test
    void aMalformedObjectIsRefusedWhole() {
        for (String text : List.of("", "[]", "{", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "{\"a\":1}}",
                "{\"a\":\"x\ny\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":tru}", "{\"a\":-}", "{\"a\":1.}",
                "{\"a\":01}", "{\"a\":\"unterminated}", "{\"a\":[1 2]}")) {
            assertThatThrownBy(() -> Json.object(text)).as(text).isInstanceOf(Json.MalformedJsonException.class);
        }
    }

    @Test
    void deepNestingIsRefusedRatherThanOverflowingTheStack() {
        String deep = "{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        assertThatThrownBy(() -> Json.object(deep)).isInstanceOf(Json.MalformedJsonException.class)
                .hasMessageContaining("at most 32 levels of nesting");
        String fine = "{\"a\":" + "[".repeat(31) + "]".repeat(31) + "}";
        assertThat(Json.object(fine)).containsKey("a");
    }
}

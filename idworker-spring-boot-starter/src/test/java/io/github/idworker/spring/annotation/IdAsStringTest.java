package io.github.idworker.spring.annotation;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.json.JsonMapper;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdAsStringTest {

    /** Beyond 2^53: JavaScript's JSON.parse would read the number as ...230. */
    static final long ID = 250_593_765_314_527_232L;

    record Order(@IdAsString long id, @IdAsString Long parent, @IdAsString long[] lines, @IdAsString Long[] boxed,
                 @IdAsString List<Long> related, @IdAsString Set<Long> tags, long quantity) {
    }

    static class Bean {
        @IdAsString
        public long id;
        public long plain;
    }

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void writesAnnotatedIdentifiersAsStringsAndLeavesOtherNumbersAlone() {
        Order o = new Order(ID, null, new long[] {ID + 1, -3}, new Long[] {ID + 2, null}, List.of(ID + 3),
                Set.of(Long.MAX_VALUE), 7);
        String text = json.writeValueAsString(o);
        assertThat(text).isEqualTo("{\"id\":\"250593765314527232\",\"parent\":null,"
                + "\"lines\":[\"250593765314527233\",\"-3\"],\"boxed\":[\"250593765314527234\",null],"
                + "\"related\":[\"250593765314527235\"],\"tags\":[\"9223372036854775807\"],\"quantity\":7}");
    }

    @Test
    void readsBackWhatItWritesAndPlainIntegers() {
        Order o = new Order(ID, ID - 1, new long[] {ID + 1, 0}, new Long[] {ID + 2, null}, List.of(ID + 3),
                Set.of(Long.MIN_VALUE), 7);
        Order back = json.readValue(json.writeValueAsString(o), Order.class);
        assertThat(back.id()).isEqualTo(ID);
        assertThat(back.parent()).isEqualTo(ID - 1);
        assertThat(back.lines()).containsExactly(ID + 1, 0);
        assertThat(Arrays.asList(back.boxed())).containsExactly(ID + 2, null);
        assertThat(back.related()).containsExactly(ID + 3);
        assertThat(back.tags()).containsExactly(Long.MIN_VALUE);

        Bean b = json.readValue("{\"id\":250593765314527232,\"plain\":1}", Bean.class);
        assertThat(b.id).isEqualTo(ID);
        assertThat(json.writeValueAsString(b)).isEqualTo("{\"id\":\"250593765314527232\",\"plain\":1}");
    }

    @Test
    void refusesAnythingButPlainDecimalDigitsNamingTheProperty() {
        for (String bad : List.of("\"+1\"", "\" 1\"", "\"1 \"", "\"1e3\"", "\"0x10\"", "\"\"", "\"-\"", "1.5",
                "\"9223372036854775808\"", "9223372036854775808", "true", "{}", "\"１２\"")) {
            assertThatThrownBy(() -> json.readValue("{\"id\":" + bad + ",\"plain\":1}", Bean.class))
                    .as(bad).isInstanceOf(DatabindException.class)
                    .hasMessageContaining("id: expected an identifier as a string of decimal digits");
        }
        assertThatThrownBy(() -> json.readValue("{\"id\":null}", Bean.class))
                .isInstanceOf(DatabindException.class).hasMessageContaining("id: null is no identifier");
        assertThatThrownBy(() -> json.readValue("{\"id\":\"1\",\"lines\":\"1\"}", Order.class))
                .isInstanceOf(DatabindException.class).hasMessageContaining("lines: expected a JSON array");
    }

    @Test
    void aLongHostileValueIsCutInTheMessage() {
        String hostile = "9".repeat(5_000);
        assertThatThrownBy(() -> json.readValue("{\"id\":\"" + hostile + "\"}", Bean.class))
                .isInstanceOf(DatabindException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("9".repeat(41)));
    }
}

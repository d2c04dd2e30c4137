package io.github.idworker.spring.annotation;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @IdAsString(format = …, prefix = …)}: the forms of {@code IdFormats} in JSON. */
class IdAsStringFormatsTest {

    static final long ID = 250_593_765_314_527_232L;

    record Order(@IdAsString(format = "base62") long id, @IdAsString(format = "base36-fixed") Long parent,
                 @IdAsString(format = "base62", prefix = "ln_") long[] lines,
                 @IdAsString(format = "decimal-fixed") List<Long> related, long quantity) {
    }

    static class Bean {
        @IdAsString(format = "base62-fixed")
        public long id;
    }

    static class Plain {
        @IdAsString(format = "string")
        public long id;
    }

    static class Misnamed {
        @IdAsString(format = "base64")
        public long id;
    }

    static class BadPrefix {
        @IdAsString(format = "base62", prefix = "ord ")
        public long id;
    }

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void writesEachFormAndReadsItBack() {
        Order o = new Order(ID, 35L, new long[] {0, 62}, List.of(7L, Long.MAX_VALUE), 3);
        String text = json.writeValueAsString(o);
        assertThat(text).isEqualTo("{\"id\":\"IVillXbwga\",\"parent\":\"000000000000z\",\"lines\":[\"ln_0\",\"ln_10\"],"
                + "\"related\":[\"0000000000000000007\",\"9223372036854775807\"],\"quantity\":3}");
        Order back = json.readValue(text, Order.class);
        assertThat(back.id()).isEqualTo(ID);
        assertThat(back.parent()).isEqualTo(35L);
        assertThat(back.lines()).containsExactly(0, 62);
        assertThat(back.related()).containsExactly(7L, Long.MAX_VALUE);
        assertThat(json.readValue("{\"id\":\"IVillXbwga\",\"parent\":null,\"lines\":[],\"related\":[],"
                + "\"quantity\":0}", Order.class)
                .parent()).isNull();
    }

    @Test
    void aBadStringIsRefusedNamingThePropertyAndWhatIsWrong() {
        assertThatThrownBy(() -> json.readValue("{\"id\":\"IVill-bwga\"}", Order.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("id: identifier \"IVill-bwga\" (base62) has '-' at index 5, outside the base62 "
                        + "digits 0-9, A-Z, a-z");
        assertThatThrownBy(() -> json.readValue("{\"id\":\"1A\",\"lines\":[\"1A\"]}", Order.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("lines: identifier \"1A\" (base62 with prefix \"ln_\") does not start with the "
                        + "prefix \"ln_\"");
        assertThatThrownBy(() -> json.readValue("{\"id\":\"IVillXbwga\"}", Bean.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("id: identifier \"IVillXbwga\" (base62-fixed) has 10 digits; the base62-fixed "
                        + "form has exactly 11");
        assertThatThrownBy(() -> json.readValue("{\"id\":\"zzzzzzzzzzz\"}", Bean.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("is beyond the largest identifier, Long.MAX_VALUE");
    }

    @Test
    void aJsonNumberIsReadForThePlainDecimalFormOnly() {
        assertThatThrownBy(() -> json.readValue("{\"id\":12}", Order.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("id: expected an identifier as a JSON string in the base62 form; found "
                        + "VALUE_NUMBER_INT");
        Plain plain = json.readValue("{\"id\":250593765314527232}", Plain.class);
        assertThat(plain.id).isEqualTo(ID);
        assertThat(json.writeValueAsString(plain)).isEqualTo("{\"id\":\"250593765314527232\"}");
    }

    @Test
    void aNegativeValueIsNotWrittenInAnIdForm() {
        Bean bean = new Bean();
        bean.id = -1;
        assertThatThrownBy(() -> json.writeValueAsString(bean))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("id: id must be non-negative (identifiers are never negative), was -1");
    }

    @Test
    void anUnknownFormatOrABadPrefixFailsNamingThePropertyAndWhatIsAllowed() {
        Misnamed misnamed = new Misnamed();
        assertThatThrownBy(() -> json.writeValueAsString(misnamed))
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("@IdAsString on id: format must be one of decimal, string, decimal-fixed, base36, "
                        + "base36-fixed, base62, base62-fixed, was \"base64\"");
        assertThatThrownBy(() -> json.readValue("{\"id\":\"1\"}", Misnamed.class))
                .isInstanceOf(InvalidDefinitionException.class).hasMessageContaining("format must be one of");
        assertThatThrownBy(() -> json.writeValueAsString(new BadPrefix()))
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("@IdAsString on id: prefix must be printable ASCII characters without whitespace");
    }

    @Test
    void springBootsJsonMapperWritesTheForms() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .run(context -> {
                    JsonMapper mapper = context.getBean(JsonMapper.class);
                    Bean bean = new Bean();
                    bean.id = ID;
                    String text = mapper.writeValueAsString(bean);
                    assertThat(text).isEqualTo("{\"id\":\"0IVillXbwga\"}");
                    assertThat(mapper.readValue(text, Bean.class).id).isEqualTo(ID);
                });
    }
}

package io.github.idworker.server;

import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.mock.http.MockHttpOutputMessage;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The identifier bodies as Jackson wrote them, each in one buffer with its length. */
class IdsJsonConverterTest {

    private final IdsJsonConverter converter = new IdsJsonConverter();

    @Test
    void writesNumbersAsJacksonDidWithTheirLength() throws IOException {
        MockHttpOutputMessage out = write(new long[] {0, 7, 10, 251724642996191232L, Long.MAX_VALUE, -1, Long.MIN_VALUE});
        String body = "[0,7,10,251724642996191232,9223372036854775807,-1,-9223372036854775808]";
        assertThat(out.getBodyAsString(StandardCharsets.US_ASCII)).isEqualTo(body);
        assertThat(out.getHeaders().getContentLength()).isEqualTo(body.length());
        assertThat(out.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
    }

    @Test
    void writesStringsForAsString() throws IOException {
        MockHttpOutputMessage out = write(new IdFormatSwitch.IdList(new long[] {1, Long.MIN_VALUE}, IdFormats.decimal()));
        assertThat(out.getBodyAsString(StandardCharsets.US_ASCII)).isEqualTo("[\"1\",\"-9223372036854775808\"]");
    }

    @Test
    void writesEveryOtherFormAsItsIdFormatWritesWithTheLength() throws IOException {
        long[] ids = {0, 61, 250_593_765_314_527_232L, Long.MAX_VALUE};
        for (String name : IdFormats.names()) {
            IdFormat form = IdFormats.named(name);
            MockHttpOutputMessage out = write(new IdFormatSwitch.IdList(ids, form));
            StringBuilder expected = new StringBuilder("[");
            for (long id : ids) {
                expected.append(expected.length() > 1 ? "," : "").append('"').append(form.format(id)).append('"');
            }
            String body = expected.append(']').toString();
            assertThat(out.getBodyAsString(StandardCharsets.US_ASCII)).as(name).isEqualTo(body);
            assertThat(out.getHeaders().getContentLength()).as(name).isEqualTo(body.length());
        }
        assertThat(write(new IdFormatSwitch.IdList(new long[] {250_593_765_314_527_232L}, IdFormats.base62Fixed()))
                .getBodyAsString(StandardCharsets.US_ASCII)).isEqualTo("[\"0IVillXbwga\"]");
    }

    @Test
    void jacksonWritesTheSameStringsShouldThisConverterNotBeChosen() {
        JsonMapper json = JsonMapper.builder().build();
        assertThat(json.writeValueAsString(new IdFormatSwitch.IdList(new long[] {61, 62}, IdFormats.base62())))
                .isEqualTo("[\"z\",\"10\"]");
        assertThat(json.writeValueAsString(new IdFormatSwitch.IdList(new long[] {-1}, IdFormats.decimal())))
                .isEqualTo("[\"-1\"]");
    }

    @Test
    void writesAnEmptyArray() throws IOException {
        assertThat(write(new long[0]).getBodyAsString(StandardCharsets.US_ASCII)).isEqualTo("[]");
    }

    @Test
    void handlesIdentifierBodiesOnlyAndReadsNothing() {
        assertThat(converter.canWrite(long[].class, MediaType.APPLICATION_JSON)).isTrue();
        assertThat(converter.canWrite(IdFormatSwitch.IdList.class, null)).isTrue();
        assertThat(converter.canWrite(IdController.DecodedIdResponse.class, MediaType.APPLICATION_JSON)).isFalse();
        assertThat(converter.canWrite(long[].class, MediaType.TEXT_PLAIN)).isFalse();
        assertThat(converter.canRead(long[].class, MediaType.APPLICATION_JSON)).isFalse();
    }

    private MockHttpOutputMessage write(Object body) throws IOException {
        MockHttpOutputMessage out = new MockHttpOutputMessage();
        converter.write(body, MediaType.APPLICATION_JSON, out);
        return out;
    }
}

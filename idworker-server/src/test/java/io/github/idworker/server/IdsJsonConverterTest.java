package io.github.idworker.server;

import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.mock.http.MockHttpOutputMessage;

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
        MockHttpOutputMessage out = write(new IdFormat.IdList(new long[] {1, Long.MIN_VALUE}));
        assertThat(out.getBodyAsString(StandardCharsets.US_ASCII)).isEqualTo("[\"1\",\"-9223372036854775808\"]");
    }

    @Test
    void writesAnEmptyArray() throws IOException {
        assertThat(write(new long[0]).getBodyAsString(StandardCharsets.US_ASCII)).isEqualTo("[]");
    }

    @Test
    void handlesIdentifierBodiesOnlyAndReadsNothing() {
        assertThat(converter.canWrite(long[].class, MediaType.APPLICATION_JSON)).isTrue();
        assertThat(converter.canWrite(IdFormat.IdList.class, null)).isTrue();
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

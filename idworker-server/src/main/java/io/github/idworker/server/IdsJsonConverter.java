package io.github.idworker.server;

import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes the identifier bodies of the ID endpoints — a {@code long[]}, or {@link IdFormatSwitch.IdList} for
 * {@code ?as=string} and the other string forms — as the same JSON Jackson writes ({@code [1,2,3]},
 * {@code ["1","2","3"]}, {@code ["0000000000001"]}), in one buffer with its {@code Content-Length}. Guarantees: every
 * identifier is written in full, in order: as its decimal digits, or as its list's form writes it.
 *
 * <p>Why not Jackson: Jackson streams into the response and Spring flushes it, so every answer went out chunked, its
 * end in a second write; and a generator is set up per answer. Here an answer of N identifiers is one array (of at
 * most 23 N + 2 bytes in decimal) and, when it fits the response buffer, one write.
 */
final class IdsJsonConverter extends AbstractHttpMessageConverter<Object> {

    /** The longest decimal identifier as JSON: a sign, 19 digits and two quotes. */
    private static final int MAX_ID_BYTES = 22;
    private static final byte[] MIN_VALUE = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    IdsJsonConverter() {
        super(MediaType.APPLICATION_JSON, new MediaType("application", "*+json"));
    }

    @Override
    protected boolean supports(Class<?> clazz) {
        return clazz == long[].class || clazz == IdFormatSwitch.IdList.class;
    }

    @Override
    public boolean canRead(Class<?> clazz, @Nullable MediaType mediaType) {
        return false; // the endpoints read no bodies
    }

    @Override
    protected Object readInternal(Class<?> clazz, HttpInputMessage inputMessage) {
        throw new HttpMessageNotReadableException("identifier lists are not read", inputMessage);
    }

    @Override
    protected void writeInternal(Object body, HttpOutputMessage outputMessage) throws IOException {
        IdFormat form = body instanceof IdFormatSwitch.IdList list ? list.form() : null;
        boolean quoted = form != null;
        // the decimal string form keeps the signed digits it has always had; the others are IdFormat's own
        IdFormat other = form == null || form.equals(IdFormats.decimal()) ? null : form;
        long[] ids = quoted ? ((IdFormatSwitch.IdList) body).ids() : (long[]) body;
        int most = other == null ? MAX_ID_BYTES : other.maxLength() + 2;
        byte[] out = new byte[2 + ids.length * (most + 1)];
        int n = 0;
        out[n++] = '[';
        for (int i = 0; i < ids.length; i++) {
            if (i > 0) {
                out[n++] = ',';
            }
            if (quoted) {
                out[n++] = '"';
            }
            n = other == null ? digits(ids[i], out, n) : ascii(other.format(ids[i]), out, n);
            if (quoted) {
                out[n++] = '"';
            }
        }
        out[n++] = ']';
        // set before the body is opened, which sends the headers: the answer then goes out whole, not chunked
        outputMessage.getHeaders().setContentLength(n);
        outputMessage.getBody().write(out, 0, n);
    }

    /** Writes {@code text}, ASCII as every form's is, at {@code at}; returns the index after it. */
    private static int ascii(String text, byte[] out, int at) {
        for (int i = 0; i < text.length(); i++) {
            out[at + i] = (byte) text.charAt(i);
        }
        return at + text.length();
    }

    /** Writes {@code value} in decimal at {@code at}; returns the index after it. */
    static int digits(long value, byte[] out, int at) {
        if (value == Long.MIN_VALUE) {
            System.arraycopy(MIN_VALUE, 0, out, at, MIN_VALUE.length);
            return at + MIN_VALUE.length;
        }
        long v = value;
        if (v < 0) {
            out[at++] = '-';
            v = -v;
        }
        int length = 1;
        for (long rest = v / 10; rest > 0; rest /= 10) {
            length++;
        }
        int end = at + length;
        for (int i = end - 1; i >= at; i--) {
            out[i] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
        return end;
    }
}

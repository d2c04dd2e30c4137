package io.github.idworker.server;

import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DecodedId;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ids/next?count=N} issues N ids (1 to {@value #MAX_COUNT}, default 1) as a JSON array;
 * {@code GET /ids/decode/{id}} splits one into timestamp, worker id and sequence; its {@code id} is read in the form
 * {@code ?as=} names, such as {@code /ids/decode/IVillXbwga?as=base62} ({@link IdFormatSwitch}). Bad input gets HTTP 400 with a
 * JSON problem naming the parameter and what is allowed (see {@link ApiExceptionHandler}).
 *
 * <p>The worker is whichever {@code @EnableIdWorker} registered, as {@code idworker.server.centre} chose: the
 * {@code RedisIdWorker} by default, the {@code DBIdWorker} or the {@code ZookeeperIdWorker}. With
 * {@code idworker.server.families.snowflake.signed=true} both need an application's signature and a grant
 * {@code snowflake:*} (or {@code snowflake:next}, {@code snowflake:decode}); off
 * ({@code …snowflake.enabled=false}) they answer 404.
 */
@RestController
@ConditionalOnBooleanProperty(name = IdWorkerServerApplication.SNOWFLAKE_ENABLED, matchIfMissing = true)
@RequestMapping("/ids")
public class IdController {

    static final int MAX_COUNT = 10_000;

    private final AbstractIdWorker idWorker;
    private final SignedCalls signed;

    public IdController(AbstractIdWorker idWorker, SignedCalls signed) {
        this.idWorker = idWorker;
        this.signed = signed;
    }

    @Issuing
    @GetMapping("/next")
    public long[] next(@RequestParam(name = "count", required = false) String count, HttpServletRequest request) {
        int n = parseCount(count);
        signed.admit(request, "snowflake", "next", n);
        return idWorker.nextIds(n);
    }

    @GetMapping("/decode/{id}")
    public DecodedIdResponse decode(@PathVariable("id") String id, HttpServletRequest request) {
        long value = parseId(id, IdFormatSwitch.requested(request));
        signed.admit(request, "snowflake", "decode", 1); // counted as one call against the rate
        return DecodedIdResponse.of(idWorker.decode(value));
    }

    /**
     * {@code id} in the string form {@code as} names; in decimal digits when it names none (no {@code as},
     * {@code number}, {@code string}, {@code decimal}).
     *
     * @throws InvalidParameterException naming {@code id}, the form and what is wrong with it
     */
    static long parseId(String id, @Nullable IdFormat form) {
        if (form == null || form.equals(IdFormats.decimal())) {
            return parseDecimal("id", id, 0, Long.MAX_VALUE, "must be a non-negative 64-bit integer");
        }
        try {
            return form.parse(id);
        } catch (IllegalArgumentException e) {
            throw new InvalidParameterException("id", "must be a non-negative 64-bit integer in the " + form.name()
                    + " form that as=" + form.name() + " names: " + e.getMessage());
        }
    }

    /** {@code count} as given to an {@code /ids} endpoint: absent means 1; otherwise 1 to {@value #MAX_COUNT}. */
    static int parseCount(String count) {
        if (count == null) {
            return 1;
        }
        return (int) parseDecimal("count", count, 1, MAX_COUNT, "must be an integer from 1 to " + MAX_COUNT);
    }

    /**
     * {@code value} as plain decimal digits between {@code min} and {@code max}. Strict on purpose: Java's parsers
     * take a sign ({@code +2}) and callers used to trim spaces, so one number had several spellings; here only
     * "0" may start with 0, and nothing but ASCII digits is allowed.
     *
     * @throws InvalidParameterException naming {@code parameter} and {@code allowed}
     */
    static long parseDecimal(String parameter, String value, long min, long max, String allowed) {
        String rule = allowed + " in plain decimal digits (no sign, spaces or leading zeros), was "
                + RequestExcerpt.quote(value);
        if (value == null || !value.matches("0|[1-9][0-9]{0,18}")) {
            throw new InvalidParameterException(parameter, rule);
        }
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException tooLarge) {
            throw new InvalidParameterException(parameter, rule);
        }
        if (n < min || n > max) {
            throw new InvalidParameterException(parameter, rule);
        }
        return n;
    }

    /**
     * One id split into its parts.
     *
     * @param id the id
     * @param timestamp the instant it was issued in, ISO-8601
     * @param workerId the worker id (slot) of the worker that issued it
     * @param sequence its position within that millisecond
     */
    public record DecodedIdResponse(long id, String timestamp, long workerId, long sequence) {

        static DecodedIdResponse of(DecodedId decoded) {
            return new DecodedIdResponse(decoded.id(), decoded.timestamp().toString(), decoded.workerId(),
                    decoded.sequence());
        }
    }
}

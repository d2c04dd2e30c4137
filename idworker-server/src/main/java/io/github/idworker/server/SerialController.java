package io.github.idworker.server;

import io.github.idworker.serial.SerialNumbers;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Serial numbers over HTTP: {@code GET /serials/{rule}?count=N} answers the next N serials of the rule as a JSON
 * array of strings, such as {@code ["ORD20261123000042"]}. No string is handed out twice. By default the numbers come from one stock in Redis ({@code SerialMode.STRICT}): first come, first served across
 * every instance, so two calls in a row get consecutive numbers. With {@code idworker.server.families.serial.mode=local} there is no
 * Redis and the numbers are in process ({@code SerialMode.LOCAL}): unique and increasing per instance.
 *
 * <p>{@code count} follows the rules of {@code /ids/next} (1 to {@value IdController#MAX_COUNT}, default 1, and
 * at most the rule's {@code max-batch}); a rule name is 1 to 64 letters, digits, '_' or '-'. Anything else is a
 * 400 naming the parameter. A rule the rule table does not hold is a 404 naming it; a rule whose period has
 * handed out its {@code max} is a 409; a store that is down is a 503 (see {@link ApiExceptionHandler}). Signed ({@code idworker.server.families.serial.signed=true}): a
 * grant {@code serial:<rule>} or {@code serial:*}.
 */
@RestController
@ConditionalOnBooleanProperty(name = IdWorkerServerApplication.SERIAL_ENABLED, matchIfMissing = true)
public class SerialController {

    private static final Pattern RULE = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final SerialNumbers serials;
    private final SignedCalls signed;

    public SerialController(SerialNumbers serials, SignedCalls signed) {
        this.serials = serials;
        this.signed = signed;
    }

    @Issuing
    @GetMapping("/serials/{rule}")
    public List<String> next(@PathVariable("rule") String rule,
                             @RequestParam(name = "count", required = false) String count,
                             HttpServletRequest request) {
        if (!RULE.matcher(rule).matches()) {
            throw new InvalidParameterException("rule", "must be 1 to 64 letters, digits, '_' or '-', was "
                    + RequestExcerpt.quote(rule));
        }
        int n = IdController.parseCount(count);
        signed.admit(request, "serial", rule, n);
        if (n == 1) {
            return List.of(serials.next(rule));
        }
        try {
            return serials.next(rule, n);
        } catch (IllegalArgumentException e) {
            // SerialNumbers.next(rule, count) refuses a count above the rule's max-batch this way
            throw new InvalidParameterException("count", "must be at most the max-batch of serial rule '" + rule
                    + "': " + e.getMessage());
        }
    }
}

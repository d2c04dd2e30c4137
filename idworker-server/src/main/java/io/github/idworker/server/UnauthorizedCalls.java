package io.github.idworker.server;

import io.github.idworker.service.UnauthorizedException;
import org.springframework.stereotype.Component;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many calls this instance refused as unauthorized, by the rule that refused them. Kept on the server only:
 * the 401 answer says "unauthorized" and nothing else, so a caller cannot map the timestamp window or learn that a
 * captured nonce was used; operators read the counts here (and the DEBUG log of {@link ApiExceptionHandler}).
 */
@Component
public class UnauthorizedCalls {

    private final Map<UnauthorizedException.Reason, LongAdder> counts = new EnumMap<>(UnauthorizedException.Reason.class);

    public UnauthorizedCalls() {
        for (UnauthorizedException.Reason reason : UnauthorizedException.Reason.values()) {
            counts.put(reason, new LongAdder());
        }
    }

    void refused(UnauthorizedException.Reason reason) {
        adder(reason).increment();
    }

    /** Calls refused for {@code reason} since this instance started. */
    public long count(UnauthorizedException.Reason reason) {
        return adder(reason).sum();
    }

    /** The constructor gave every reason its adder, so there is one. */
    private LongAdder adder(UnauthorizedException.Reason reason) {
        return Objects.requireNonNull(counts.get(reason));
    }
}

package io.github.idworker.server;

import io.github.idworker.service.RequestAuthenticator;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Guarantees that a call of a family configured as signed ({@code idworker.server.families.<family>.signed})
 * reaches its generator only after {@link RequestAuthenticator} admitted it: a valid signature, a fresh nonce, a
 * grant for the family and name, and room in the application's rate. Calls of unsigned families pass untouched.
 */
@Component
public class SignedCalls {

    private final IdServerProperties.Families families;
    private final ObjectProvider<RequestAuthenticator> authenticator;

    public SignedCalls(IdServerProperties properties, ObjectProvider<RequestAuthenticator> authenticator) {
        properties.check();
        this.families = properties.getFamilies();
        this.authenticator = authenticator;
    }

    /**
     * Admits a call of {@code name} in {@code family} handing out {@code count} IDs, when the family is signed.
     *
     * @throws io.github.idworker.service.UnauthorizedException and the other refusals of
     *         {@link RequestAuthenticator#authenticate}
     */
    void admit(HttpServletRequest request, String family, String name, int count) {
        if (!signed(family)) {
            return;
        }
        // the path and query exactly as sent: the signature covers the raw bytes, not Spring's decoded values
        authenticator.getObject().authenticate(request.getMethod(), request.getRequestURI(), request.getQueryString(),
                request::getHeader, family, name, count);
    }

    boolean signed(String family) {
        return switch (family) {
            case "snowflake" -> families.getSnowflake().isSigned();
            case "segment" -> families.getSegment().isSigned();
            case "sequence" -> families.getSequence().isSigned();
            case "serial" -> families.getSerial().isSigned();
            case "pool" -> true;
            default -> throw new IllegalArgumentException("no family " + family);
        };
    }
}

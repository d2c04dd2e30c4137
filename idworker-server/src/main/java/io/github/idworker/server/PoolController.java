package io.github.idworker.server;

import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.service.RequestAuthenticator;
import io.github.idworker.spring.boot.autoconfigure.IdWorkerProperties;
import io.github.idworker.spring.boot.autoconfigure.PoolProperties;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.regex.Pattern;

/**
 * ID pools over HTTP for signed applications: {@code GET /pools/{entity}/ids?count=N} answers N IDs of the entity
 * as a JSON array, such as {@code [4,6,8]}, with the header {@code X-Id-Environment: e/E} naming the environment
 * split that issued them. No ID is handed out twice, by this or any other environment.
 *
 * <p>Steps of a call, each refusal an RFC 9457 problem document (see {@link ApiExceptionHandler}):
 * <ol>
 *   <li>{@code entity} (1 to 64 letters, digits, '_', '-' or '.') and {@code count} (1 to
 *       {@value IdController#MAX_COUNT}, default 1) well-formed, else 400 naming the parameter — a malformed
 *       request is refused before its signature is looked at, which tells the caller nothing about any key;</li>
 *   <li>{@link RequestAuthenticator}: signature, timestamp, nonce and replay (401 "unauthorized"), the entity
 *       allowed for the application (403), the application's own rate (429 with {@code Retry-After});</li>
 *   <li>{@link IdPools#take}, only for an admitted call: a count above the entity's {@code max-per-request} is
 *       400, an unknown entity 404, the entity's rate 429 with {@code Retry-After}, an empty pool 503.</li>
 * </ol>
 * Steps 2 and 3 are one Redis round trip ({@code request-admit-take.lua}) when the request gate and the pools use
 * one single Redis (not Redis Cluster) and the entity is already checked on this instance; else two
 * ({@link RequestAuthenticator#take}).
 */
@RestController
@ConditionalOnBooleanProperty(name = IdWorkerServerApplication.POOL_ENABLED, matchIfMissing = true)
public class PoolController {

    static final String ENVIRONMENT_HEADER = "X-Id-Environment";
    private static final Pattern ENTITY = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final IdPools pools;
    private final RequestAuthenticator authenticator;
    private final String environment;

    public PoolController(IdPools pools, RequestAuthenticator authenticator, IdWorkerProperties properties) {
        this.pools = pools;
        this.authenticator = authenticator;
        PoolProperties pool = properties.getPool();
        this.environment = new PoolEnvironment(pool.getEnvironment(), pool.getEnvironments()).toString();
    }

    @Issuing
    @GetMapping("/pools/{entity}/ids")
    public ResponseEntity<long[]> ids(@PathVariable("entity") String entity,
                                      @RequestParam(name = "count", required = false) String count,
                                      HttpServletRequest request) {
        if (!ENTITY.matcher(entity).matches()) {
            throw new InvalidParameterException("entity", "must be 1 to 64 letters, digits, '_', '-' or '.'");
        }
        int n = IdController.parseCount(count);
        // the path and query exactly as sent: the signature covers the raw bytes, not Spring's decoded values
        long[] ids = authenticator.take(request.getMethod(), request.getRequestURI(), request.getQueryString(),
                request::getHeader, pools, entity, n);
        return ResponseEntity.ok().header(ENVIRONMENT_HEADER, environment).body(ids);
    }
}

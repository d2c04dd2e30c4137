package io.github.idworker.server;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolRequestTooLargeException;
import io.github.idworker.pool.RateLimitedException;
import io.github.idworker.pool.UnknownPoolEntityException;
import io.github.idworker.service.AppRateLimitedException;
import io.github.idworker.service.EntityForbiddenException;
import io.github.idworker.service.UnauthorizedException;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.UnknownSerialRuleException;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.servlet.resource.NoResourceFoundException;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Turns errors into RFC 9457 problem documents ({@code application/problem+json}): a bad parameter is a 400 whose
 * {@code detail} names it and the allowed values; a segment tag or a serial rule the table does not know is a 404
 * naming it; a serial rule whose period is used up is a 409; an id that cannot be issued safely right now (the
 * centre, the segment store or the serial stores are down, a refill timed out) is a 503, and so is
 * {@code /ids/sequence} on an instance without Redis.
 *
 * <p>What a body may say, by construction: a {@code detail} is written here from what the caller sent (its
 * parameter, tag, rule, entity, count) and from settings' names, never from an exception's message, since
 * idworker's messages name hosts, ports, Redis keys, tables and JDBC URLs for the operator. A failure on the
 * server's side (every other {@link IdWorkerException}: a store down, a refill timed out, a stale segment) is a 503
 * whose {@code detail} is generic and whose {@code errorId} finds the full, credential-redacted message in the log
 * ({@link ServerFailures}). The only messages passed through are this server's own, built from the caller's input
 * ({@link InvalidParameterException}, {@link MalformedRequestException}).
 *
 * <p>The signed pool endpoints ({@link PoolController}) add: 401 for a call that cannot be authenticated, whose
 * {@code detail} is only "unauthorized" and which says nothing more (the rule that refused it is counted in
 * {@link UnauthorizedCalls} and logged at DEBUG, on the server only); 403
 * for an entity the application may not take from; 429 with {@code Retry-After} (whole seconds, at least 1) and
 * {@code retryAfterMillis} when the application's or the entity's rate is used up ({@code limit} says which); 503
 * for an empty pool; 404 for an unknown entity; 400 for a count above the entity's {@code max-per-request}.
 *
 * <p>Spring MVC's own refusals are problem documents too (this class extends
 * {@link ResponseEntityExceptionHandler}): a path without an endpoint is a 404 naming it in short, a method the
 * path does not take a 405 naming the method and, in {@code allowed} and the {@code Allow} header, the ones it
 * does. A path or query not in its plain spelling is a 400 naming the {@code part} ({@link StrictRequestFilter}).
 * Input is quoted only in short ({@link RequestExcerpt}), and so is the {@code instance} path.
 */
@RestControllerAdvice
public class ApiExceptionHandler extends ResponseEntityExceptionHandler implements ResponseBodyAdvice<Object> {

    /** Longest {@code instance} written; Spring fills it with the whole request path, which may be kilobytes. */
    private static final int MAX_INSTANCE_LENGTH = 100;
    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    private final UnauthorizedCalls unauthorizedCalls;

    public ApiExceptionHandler(UnauthorizedCalls unauthorizedCalls) {
        this.unauthorizedCalls = unauthorizedCalls;
    }

    @ExceptionHandler(MalformedRequestException.class)
    public ProblemDetail malformed(MalformedRequestException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
        problem.setTitle("Malformed request");
        problem.setProperty("part", e.getPart());
        return problem;
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleHttpRequestMethodNotSupported(
            HttpRequestMethodNotSupportedException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        boolean issuing = e instanceof IssuingMethodsFilter.GetOnlyException;
        Set<String> allowed = new TreeSet<>();
        if (e.getSupportedHttpMethods() != null) {
            e.getSupportedHttpMethods().forEach(method -> allowed.add(method.name()));
        }
        if (!issuing && allowed.contains("GET")) {
            // Spring leaves HEAD out of what it names, though it serves HEAD wherever it serves GET
            allowed.add("HEAD");
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, "method "
                + RequestExcerpt.quote(e.getMethod()) + " is not allowed here; allowed: " + String.join(", ", allowed)
                + (issuing ? " (this endpoint issues numbers, so not even HEAD)" : ""));
        problem.setProperty("method", RequestExcerpt.quote(e.getMethod()).replace("'", ""));
        problem.setProperty("allowed", List.copyOf(allowed));
        HttpHeaders answer = new HttpHeaders();
        answer.putAll(headers);
        answer.setAllow(allowed.stream().map(HttpMethod::valueOf).collect(Collectors.toCollection(LinkedHashSet::new)));
        return handleExceptionInternal(e, problem, answer, status, request);
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleNoResourceFoundException(NoResourceFoundException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, "no endpoint at "
                + RequestExcerpt.quote("/" + e.getResourcePath()));
        return handleExceptionInternal(e, problem, headers, status, request);
    }

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    /** Shortens an {@code instance} that Spring filled with a long request path. */
    @Override
    public @Nullable Object beforeBodyWrite(@Nullable Object body, MethodParameter returnType,
                                            MediaType contentType, Class<? extends HttpMessageConverter<?>> converterType,
                                            ServerHttpRequest request, ServerHttpResponse response) {
        if (body instanceof ProblemDetail problem && problem.getInstance() != null
                && problem.getInstance().toString().length() > MAX_INSTANCE_LENGTH) {
            String path = problem.getInstance().toString().substring(0, MAX_INSTANCE_LENGTH);
            int escape = path.lastIndexOf('%');
            if (escape >= path.length() - 2) {
                path = path.substring(0, escape);   // do not cut an escape in half: the URI would be invalid
            }
            problem.setInstance(URI.create(path));
        }
        return body;
    }

    @ExceptionHandler(InvalidParameterException.class)
    public ProblemDetail invalidParameter(InvalidParameterException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
        problem.setTitle("Invalid parameter");
        problem.setProperty("parameter", e.getParameter());
        return problem;
    }

    @ExceptionHandler(UnknownSegmentTagException.class)
    public ProblemDetail unknownTag(UnknownSegmentTagException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "segment tag "
                + RequestExcerpt.quote(e.getBizTag()) + " is not registered; register it (idworker.segment.tags, or the "
                + "segment table), or set idworker.segment.auto-create=true to create tags on first use");
        problem.setTitle("Unknown segment tag");
        problem.setProperty("tag", e.getBizTag());
        return problem;
    }

    @ExceptionHandler(UnknownSerialRuleException.class)
    public ProblemDetail unknownRule(UnknownSerialRuleException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "serial rule "
                + RequestExcerpt.quote(e.getRule()) + " is not registered; configure it under "
                + SerialRule.PROPERTY_PREFIX + e.getRule() + ".* or insert it into the rule table");
        problem.setTitle("Unknown serial rule");
        problem.setProperty("rule", e.getRule());
        return problem;
    }

    /**
     * 409 Conflict, not 503: the rule's period has handed out its {@code max}, a state of the rule that every
     * instance shares and that lasts until the next period or until an operator raises {@code max}. Nothing is
     * wrong with this instance or its stores, so a client or load balancer that retries elsewhere, or a health
     * check that counts 5xx, would be misled; the client must change something (wait for the period, use another
     * rule) before asking again.
     */
    @ExceptionHandler(SerialExhaustedException.class)
    public ProblemDetail serialExhausted(SerialExhaustedException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "serial rule "
                + RequestExcerpt.quote(e.getRule()) + " has no numbers left in period " + e.getPeriod() + ": its max "
                + e.getMax() + " is reached; raise " + SerialRule.property(e.getRule(), "max")
                + " (within the width) or wait for the next period");
        problem.setTitle("Serial rule exhausted for this period");
        problem.setProperty("rule", e.getRule());
        problem.setProperty("period", e.getPeriod());
        problem.setProperty("max", e.getMax());
        return problem;
    }

    @ExceptionHandler(UnauthorizedException.class)
    public ProblemDetail unauthorized(UnauthorizedException e) {
        // which rule refused the call stays on the server: telling the caller would map the timestamp window and
        // confirm that a captured nonce was used
        unauthorizedCalls.refused(e.getReason());
        log.debug("Refused a call as unauthorized: {}", e.getReason().code());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED, "unauthorized");
        problem.setTitle("Unauthorized");
        return problem;
    }

    @ExceptionHandler(EntityForbiddenException.class)
    public ProblemDetail forbidden(EntityForbiddenException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, "this application may not take "
                + "IDs of entity '" + e.getEntity() + "'");
        problem.setTitle("Entity not allowed");
        problem.setProperty("entity", e.getEntity());
        return problem;
    }

    @ExceptionHandler(AppRateLimitedException.class)
    public ResponseEntity<ProblemDetail> appRateLimited(AppRateLimitedException e) {
        return tooMany("this application's limit of " + e.getMaxPerSecond() + " IDs per second is used up",
                "app", e.getMaxPerSecond(), e.getRetryAfter());
    }

    @ExceptionHandler(RateLimitedException.class)
    public ResponseEntity<ProblemDetail> entityRateLimited(RateLimitedException e) {
        return tooMany("entity '" + e.getEntity() + "' hands out at most " + e.getMaxPerSecond()
                + " IDs per second, across all applications", "entity", e.getMaxPerSecond(), e.getRetryAfter());
    }

    private static ResponseEntity<ProblemDetail> tooMany(String detail, String limit, int maxPerSecond,
                                                         Duration retryAfter) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
        problem.setTitle("Rate limited");
        problem.setProperty("limit", limit);
        problem.setProperty("maxPerSecond", maxPerSecond);
        problem.setProperty("retryAfterMillis", retryAfter.toMillis());
        // Retry-After counts whole seconds; rounding down to 0 would invite an immediate retry
        long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header(HttpHeaders.RETRY_AFTER,
                Long.toString(seconds)).body(problem);
    }

    @ExceptionHandler(PoolEmptyException.class)
    public ResponseEntity<ProblemDetail> poolEmpty(PoolEmptyException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "ID pool '"
                + e.getEntity() + "' holds fewer than " + e.getRequested() + " IDs right now; it is being refilled");
        problem.setTitle("ID pool empty");
        problem.setProperty("entity", e.getEntity());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1")
                .body(problem);
    }

    @ExceptionHandler(UnknownPoolEntityException.class)
    public ProblemDetail unknownEntity(UnknownPoolEntityException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "no ID pool entity '"
                + e.getEntity() + "' here");
        problem.setTitle("Unknown pool entity");
        problem.setProperty("entity", e.getEntity());
        return problem;
    }

    @ExceptionHandler(PoolRequestTooLargeException.class)
    public ProblemDetail tooLarge(PoolRequestTooLargeException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, "count "
                + e.getRequested() + " is above max-per-request " + e.getMaxPerRequest() + " of ID pool "
                + RequestExcerpt.quote(e.getEntity()));
        problem.setTitle("Invalid parameter");
        problem.setProperty("parameter", "count");
        return problem;
    }

    /**
     * Every other idworker failure: the server's side, so the caller learns only that and an {@code errorId}; the
     * message, which names the store (host, port, keys, table, JDBC URL), goes to the log under that id.
     */
    @ExceptionHandler(IdWorkerException.class)
    public ProblemDetail unavailable(IdWorkerException e, HttpServletRequest request) {
        String errorId = ServerFailures.record(request.getRequestURI(), e, true);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                ServerFailures.detail(e instanceof CenterUnavailableException
                        ? "an ID store this endpoint needs is unavailable right now"
                        : "no ID can be issued safely right now", errorId));
        problem.setTitle("No id can be issued safely right now");
        problem.setProperty("errorId", errorId);
        return problem;
    }
}

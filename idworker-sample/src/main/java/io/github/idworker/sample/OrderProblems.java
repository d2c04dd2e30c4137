package io.github.idworker.sample;

import io.github.idworker.IdWorkerException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;

import java.util.Map;

/**
 * Answers every error with an RFC 9457 problem document ({@code application/problem+json}). Bad input is a 400
 * whose {@code field} and {@code detail} name the field and what it allows; an unknown order is a 404. IDs that
 * cannot be issued safely right now, or a database that cannot be reached, are a 503 whose detail is generic: the
 * cause, which may name hosts and tables, goes to the log only. Spring MVC's own refusals (a wrong method or media
 * type, a path without an endpoint) are problem documents too, from {@link ResponseEntityExceptionHandler}.
 */
@RestControllerAdvice
public class OrderProblems extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(OrderProblems.class);
    /** What each field of {@link NewOrder} takes, for a body whose value has the wrong JSON type. */
    private static final Map<String, String> EXPECTED = Map.of(
            "customer", "a string, such as \"ada\"",
            "amount", "a number, such as 12.50");

    @ExceptionHandler
    public ProblemDetail invalid(InvalidOrderException e) {
        return badField(e.getField(), e.getMessage());
    }

    @ExceptionHandler
    public ProblemDetail notFound(OrderNotFoundException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
        problem.setTitle("Order not found");
        return problem;
    }

    @ExceptionHandler({IdWorkerException.class, DataAccessException.class})
    public ProblemDetail unavailable(RuntimeException e) {
        log.warn("An order could not be created or read: {}", e.toString());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "orders cannot be served right now; retry later");
        problem.setTitle("Temporarily unavailable");
        return problem;
    }

    /** A body that is no JSON object, or whose field has the wrong JSON type: names the field where known. */
    @Override
    protected @Nullable ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String field = fieldOf(e);
        ProblemDetail problem;
        if (field != null) {
            problem = badField(field, field + " must be " + EXPECTED.get(field));
        } else {
            problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                    "the body must be a JSON object such as {\"customer\":\"ada\",\"amount\":12.50}");
            problem.setTitle("Malformed body");
        }
        return handleExceptionInternal(e, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    /** A path variable of the wrong type: only {@code GET /orders/{id}} has one. */
    @Override
    protected @Nullable ResponseEntity<Object> handleTypeMismatch(TypeMismatchException e, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        String field = e.getPropertyName() != null ? e.getPropertyName() : "id";
        ProblemDetail problem = badField(field, field + " must be an order id: a whole number, such as "
                + "250593765314527232");
        return handleExceptionInternal(e, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    private static ProblemDetail badField(String field, @Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
        problem.setTitle("Invalid " + field);
        problem.setProperty("field", field);
        return problem;
    }

    /** The field of {@link NewOrder} that Jackson could not read, or {@code null}. */
    private static @Nullable String fieldOf(HttpMessageNotReadableException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
                String name = jackson.getPath().get(0).getPropertyName();
                return EXPECTED.containsKey(name) ? name : null;
            }
        }
        return null;
    }
}

package io.github.idworker.sample;

import io.github.idworker.IdWorkerException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns errors into RFC 9457 problem documents ({@code application/problem+json}): a bad parameter is a 400 whose
 * {@code detail} names it and the allowed values; an id that cannot be issued safely right now is a 503.
 */
@RestControllerAdvice
public class ApiExceptionHandler {

    @ExceptionHandler(InvalidParameterException.class)
    public ProblemDetail invalidParameter(InvalidParameterException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
        problem.setTitle("Invalid parameter");
        problem.setProperty("parameter", e.getParameter());
        return problem;
    }

    @ExceptionHandler(IdWorkerException.class)
    public ProblemDetail unavailable(IdWorkerException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("No id can be issued safely right now");
        return problem;
    }
}

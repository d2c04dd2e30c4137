package io.github.idworker.sample;

import io.github.idworker.IdWorkerException;
import io.github.idworker.segment.UnknownSegmentTagException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns errors into RFC 9457 problem documents ({@code application/problem+json}): a bad parameter is a 400 whose
 * {@code detail} names it and the allowed values; a segment tag the table does not know is a 404 naming it; an
 * id that cannot be issued safely right now (the centre or the segment store is down, a refill timed out) is a
 * 503, and so is {@code /ids/sequence} on an instance without Redis.
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

    @ExceptionHandler(UnknownSegmentTagException.class)
    public ProblemDetail unknownTag(UnknownSegmentTagException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
        problem.setTitle("Unknown segment tag");
        problem.setProperty("tag", e.getBizTag());
        return problem;
    }

    @ExceptionHandler(RedisSequencesUnavailableException.class)
    public ProblemDetail noRedis(RedisSequencesUnavailableException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("Redis sequences are not available on this instance");
        return problem;
    }

    @ExceptionHandler(IdWorkerException.class)
    public ProblemDetail unavailable(IdWorkerException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("No id can be issued safely right now");
        return problem;
    }
}

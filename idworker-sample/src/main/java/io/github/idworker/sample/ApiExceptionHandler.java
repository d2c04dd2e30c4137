package io.github.idworker.sample;

import io.github.idworker.IdWorkerException;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.UnknownSerialRuleException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns errors into RFC 9457 problem documents ({@code application/problem+json}): a bad parameter is a 400 whose
 * {@code detail} names it and the allowed values; a segment tag or a serial rule the table does not know is a 404
 * naming it; a serial rule whose period is used up is a 409; an id that cannot be issued safely right now (the
 * centre, the segment store or the serial stores are down, a refill timed out) is a 503, and so is
 * {@code /ids/sequence} on an instance without Redis. Messages come from idworker, which names tables and hosts
 * but never a credential.
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

    @ExceptionHandler(UnknownSerialRuleException.class)
    public ProblemDetail unknownRule(UnknownSerialRuleException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
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
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
        problem.setTitle("Serial rule exhausted for this period");
        problem.setProperty("rule", e.getRule());
        problem.setProperty("period", e.getPeriod());
        problem.setProperty("max", e.getMax());
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

package io.github.idworker.server;


import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;

/**
 * Boot's error page ({@code server.error.path}, {@code /error}) as an RFC 9457 problem document, in place of
 * {@code BasicErrorController}, whose answer is the Whitelabel HTML page for a browser and a JSON shape of its own
 * for anyone else. It answers the errors that arise inside the server but outside Spring MVC's exception handling
 * ({@link ApiExceptionHandler}): a {@code sendError} by a filter or by Tomcat (a parameter it cannot parse,
 * {@code TRACE}), or an exception thrown past the dispatcher. The {@code detail} names the status and, for a 404,
 * the path in short ({@link RequestExcerpt}); exception messages are not passed on, since they may hold internals:
 * a 5xx says only that the request failed and gives the {@code errorId} under which {@link ServerFailures} logged it.
 * Asked directly, {@code /error} is a 404 like any other path without an endpoint.
 */
@RestController
@RequestMapping("${server.error.path:/error}")
public class ProblemErrorController implements ErrorController {

    @RequestMapping
    public ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        String path = (String) request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        HttpStatus status = code instanceof Integer c ? HttpStatus.resolve(c) : HttpStatus.NOT_FOUND;
        if (code == null) {
            path = request.getRequestURI();
        }
        if (status == null) {
            status = HttpStatus.INTERNAL_SERVER_ERROR;
        }
        String errorId = null;
        if (status.is5xxServerError()) {
            // the answer gives the errorId of this log line (the exception stays out of the body)
            errorId = ServerFailures.record(path, (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION),
                    false);
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, errorId != null
                ? ServerFailures.detail("the request failed inside the server", errorId)
                : detail(status, request, path));
        if (errorId != null) {
            problem.setProperty("errorId", errorId);
        }
        try {
            // the path the client asked for, not /error (ApiExceptionHandler shortens a long one)
            problem.setInstance(URI.create(path));
        } catch (IllegalArgumentException | NullPointerException notAUri) {
            // Spring fills in the request path
        }
        return ResponseEntity.status(status).body(problem);
    }

    private static String detail(HttpStatus status, HttpServletRequest request, String path) {
        return switch (status) {
            case NOT_FOUND -> "no endpoint at " + RequestExcerpt.quote(path);
            // only Tomcat's refusal of TRACE gets here; the error dispatch reports its method as GET, so the
            // method is named from Tomcat's message instead
            case METHOD_NOT_ALLOWED -> String.valueOf(request.getAttribute(RequestDispatcher.ERROR_MESSAGE))
                    .startsWith("TRACE") ? "method 'TRACE' is not allowed on this server"
                    : "this method is not allowed on " + RequestExcerpt.quote(path);
            case BAD_REQUEST -> "the request could not be parsed (its query or body is malformed), path was "
                    + RequestExcerpt.quote(path);
            default -> "the request was refused: " + status.getReasonPhrase();
        };
    }
}

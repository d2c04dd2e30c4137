package io.github.idworker.server;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tomcat's error report for this server, written as an RFC 9457 problem document ({@code application/problem+json})
 * instead of Tomcat's HTML page. It answers what Tomcat refuses before any application code runs: an unparsable
 * request line or header, a path with a bad escape or an encoded '/', '\' or NUL, a request line or header block
 * larger than {@code server.max-http-request-header-size}. Errors inside the application never get here: Spring
 * MVC writes those, or Boot's error page forward reaches {@link ProblemErrorController}, and this valve then sees
 * content already written and stays silent.
 *
 * <p>The {@code detail} names the rule that was broken and quotes the input only through {@link RequestExcerpt};
 * Tomcat's own messages are not passed on, as some of them repeat the whole request target. Tomcat answers both an
 * oversized request line and oversized headers with 400; this valve tells them apart (414 URI Too Long, 431 Request
 * Header Fields Too Large) by whether the request line was read at all.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Tomcat's message for a request line or header block above the limit; it has no exception type of its own. */
    private static final String TOO_LARGE = "Request header is too large";

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        // the same guards as Tomcat's report: an error status, nothing written yet, reported once, I/O still allowed
        if (response.getStatus() < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean();
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        String uri = request.getRequestURI();
        int status = response.getStatus();
        String detail;
        String message = throwable != null ? throwable.getMessage() : response.getMessage();
        if (message != null && message.startsWith(TOO_LARGE)) {
            status = uri == null ? 414 : 431;
            detail = uri == null
                    ? "the request line (method, path and query) is longer than this server accepts"
                    : "the request headers are larger than this server accepts";
        } else {
            detail = describe(status, message, uri);
        }
        Map<String, Object> problem = new LinkedHashMap<>();
        HttpStatus known = HttpStatus.resolve(status);
        problem.put("type", "about:blank");
        problem.put("title", known != null ? known.getReasonPhrase() : "Error");
        problem.put("status", status);
        problem.put("detail", detail);
        try {
            response.setStatus(status);
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("UTF-8");
            PrintWriter writer = response.getReporter();
            if (writer != null) {
                writer.write(JSON.writeValueAsString(problem));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone or the response cannot take a body any more: nothing else to tell anyone
        }
    }

    /** The rule a request Tomcat refused with {@code status} broke, from Tomcat's {@code message}. */
    private static String describe(int status, @Nullable String message, @Nullable String uri) {
        String in = uri != null ? ", path was " + RequestExcerpt.quote(uri) : "";
        if (status != 400 || message == null) {
            return "the server refused the request before it reached the application (HTTP " + status + ")" + in;
        }
        if (message.contains("hexadecimal")) {
            return "every '%' in the path must start an escape of two hexadecimal digits" + in;
        }
        if (message.contains("encoded slash")) {
            return "an encoded '/' (%2F) is not accepted in the path" + in;
        }
        if (message.startsWith("Invalid URI")) {
            return "the path must not hold encoded '\\' (%5C), control characters or an escape that is not "
                    + "UTF-8" + in;
        }
        if (message.contains("request target")) {
            return "the request target holds a character that RFC 3986 does not allow unescaped";
        }
        if (message.contains("method name")) {
            return "the method is not a valid HTTP token";
        }
        return "the request line or a header is malformed" + in;
    }
}

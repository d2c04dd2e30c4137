package io.github.idworker.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * Guarantees that a request reaches an endpoint only in its one plain spelling: a path without parameters
 * ({@code ;x}, {@code ;jsessionid=…}), empty segments ({@code //}) or dot segments ({@code .}, {@code ..}, also
 * percent-encoded), and a query whose every '%' starts a two-digit hexadecimal escape. Anything else is a 400
 * problem document naming the part and the rule ({@link MalformedRequestException}).
 *
 * <p>Why: Tomcat strips path parameters and resolves dot segments before mapping, so {@code /ids/next;x} and
 * {@code /ids/x/../next} used to issue IDs like {@code /ids/next}, while {@code //ids/next} and
 * {@code /ids/./next} fell through to an HTML 404; one resource with many spellings also defeats path-based rules
 * in front of the service. Tomcat itself already refuses bad escapes, encoded '/', '\' and NUL in the path and
 * characters RFC 3986 does not allow (answered by {@link ProblemErrorReportValve}); a bad escape in the query it
 * would only notice when the parameters are first read, which is the endpoint's business, so it is checked here
 * first. Spring Security's {@code StrictHttpFirewall} does this job in applications that have Spring Security; the
 * server does not.
 */
class StrictRequestFilter extends OncePerRequestFilter {

    private final Supplier<HandlerExceptionResolver> resolver;

    StrictRequestFilter(Supplier<HandlerExceptionResolver> resolver) {
        this.resolver = resolver;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String problem = pathProblem(request.getRequestURI());
        String part = "path";
        if (problem == null) {
            problem = queryProblem(request.getQueryString());
            part = "query";
        }
        if (problem != null) {
            resolver.get().resolveException(request, response, null, new MalformedRequestException(part, problem));
            return;
        }
        chain.doFilter(request, response);
    }

    /** What is wrong with the raw (undecoded) path, or null when it is plain. */
    static @Nullable String pathProblem(String path) {
        if (path.indexOf(';') >= 0) {
            return "path parameters (';') are not accepted, path was " + RequestExcerpt.quote(path);
        }
        if (path.contains("//")) {
            return "empty path segments ('//') are not accepted, path was " + RequestExcerpt.quote(path);
        }
        for (String segment : path.split("/")) {
            String decoded = segment.replace("%2e", ".").replace("%2E", ".");
            if (decoded.equals(".") || decoded.equals("..")) {
                return "dot segments ('.' and '..') are not accepted, path was " + RequestExcerpt.quote(path);
            }
        }
        return null;
    }

    /** What is wrong with the raw query, or null when absent or every escape is well-formed. */
    static @Nullable String queryProblem(@Nullable String query) {
        if (query == null) {
            return null;
        }
        for (int i = query.indexOf('%'); i >= 0; i = query.indexOf('%', i + 1)) {
            if (i + 2 >= query.length() || !isHex(query.charAt(i + 1)) || !isHex(query.charAt(i + 2))) {
                return "every '%' in the query must start an escape of two hexadecimal digits, query was "
                        + RequestExcerpt.quote(query);
            }
        }
        return null;
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}

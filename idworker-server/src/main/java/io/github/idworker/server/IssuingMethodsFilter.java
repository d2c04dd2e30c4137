package io.github.idworker.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.mvc.condition.PathPatternsRequestCondition;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Guarantees that an {@link Issuing} endpoint runs for {@code GET} only: any other method on its path, {@code HEAD}
 * included, is refused with 405, {@code Allow: GET} and a problem document before any handler runs, so nothing is
 * taken for a request whose answer would be thrown away.
 *
 * <p>A filter and not a handler interceptor, because Spring MVC refuses {@code POST} and the like itself, with
 * {@code Allow: GET,HEAD}, before an interceptor would run. The paths come from the {@code @Issuing} handler
 * methods' own mappings, read once on the first request (the mappings are complete only after the context has
 * started), so the filter cannot drift from the controllers.
 */
class IssuingMethodsFilter extends OncePerRequestFilter {

    private static final List<String> ALLOWED = List.of(HttpMethod.GET.name());

    private final Supplier<RequestMappingHandlerMapping> mapping;
    private final Supplier<HandlerExceptionResolver> resolver;
    private volatile @Nullable List<PathPattern> issuingPaths;

    IssuingMethodsFilter(Supplier<RequestMappingHandlerMapping> mapping, Supplier<HandlerExceptionResolver> resolver) {
        this.mapping = mapping;
        this.resolver = resolver;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!HttpMethod.GET.matches(request.getMethod()) && isIssuing(request)) {
            resolver.get().resolveException(request, response, null,
                    new GetOnlyException(request.getMethod()));
            return;
        }
        chain.doFilter(request, response);
    }

    private boolean isIssuing(HttpServletRequest request) {
        PathContainer path = PathContainer.parsePath(
                request.getRequestURI().substring(request.getContextPath().length()));
        for (PathPattern pattern : issuingPaths()) {
            if (pattern.matches(path)) {
                return true;
            }
        }
        return false;
    }

    private List<PathPattern> issuingPaths() {
        List<PathPattern> paths = issuingPaths;
        if (paths == null) {
            paths = new ArrayList<>();
            for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : mapping.get().getHandlerMethods().entrySet()) {
                if (entry.getValue().hasMethodAnnotation(Issuing.class)) {
                    PathPatternsRequestCondition parsed = entry.getKey().getPathPatternsCondition();
                    if (parsed != null) {
                        paths.addAll(parsed.getPatterns());
                    } else {
                        // mappings matched with AntPathMatcher (spring.mvc.pathmatch.matching-strategy) keep their
                        // patterns as text only
                        for (String pattern : entry.getKey().getPatternValues()) {
                            paths.add(PathPatternParser.defaultInstance.parse(pattern));
                        }
                    }
                }
            }
            issuingPaths = paths = List.copyOf(paths);
        }
        return paths;
    }

    /** A method other than {@code GET} on an {@link Issuing} endpoint; its {@code Allow} is {@code GET} alone. */
    static final class GetOnlyException extends HttpRequestMethodNotSupportedException {

        GetOnlyException(String method) {
            super(method, ALLOWED);
        }
    }
}

package io.github.idworker.server;

import io.github.idworker.spring.annotation.IdAsString;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * The server's {@code ?as=string} switch: every endpoint that answers identifiers ({@code /ids/next},
 * {@code /ids/segment/{tag}}, {@code /ids/sequence/{tag}}, {@code /ids/decode/{id}}, {@code /pools/{entity}/ids})
 * writes them as JSON strings ({@code ["250593765314527232"]}) when asked with {@code as=string}, for JavaScript
 * callers whose numbers lose digits beyond 2<sup>53</sup>; {@code as=number} (or no {@code as}) keeps numbers.
 * Any other value is refused with a 400 naming {@code as} <em>before</em> the endpoint runs, so no identifier is
 * taken for an answer that is never sent. Both forms are written by {@link IdsJsonConverter}.
 */
@Configuration(proxyBeanMethods = false)
public class IdFormat implements WebMvcConfigurer {

    /** The query parameter. */
    static final String PARAMETER = "as";

    /** Identifier lists as JSON without Jackson, ahead of it ({@link IdsJsonConverter}). */
    @Override
    public void configureMessageConverters(HttpMessageConverters.ServerBuilder builder) {
        builder.addCustomConverter(new IdsJsonConverter());
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new HandlerInterceptor() {
            @Override
            public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
                asStrings(request);
                return true;
            }
        });
    }

    /** Whether the request asks for strings; throws {@link InvalidParameterException} for a value not allowed. */
    static boolean asStrings(HttpServletRequest request) {
        String[] values = request.getParameterValues(PARAMETER);
        if (values == null) {
            return false;
        }
        if (values.length != 1 || !(values[0].equals("string") || values[0].equals("number"))) {
            throw new InvalidParameterException(PARAMETER, "must be given once, as 'string' or 'number'");
        }
        return values[0].equals("string");
    }

    /** Rewrites identifier bodies for {@code as=string}; everything else passes unchanged. */
    @ControllerAdvice
    static class Advice implements ResponseBodyAdvice<Object> {

        @Override
        public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
            return true;
        }

        @Override
        public @Nullable Object beforeBodyWrite(@Nullable Object body, MethodParameter returnType,
                                                MediaType selectedContentType,
                                                Class<? extends HttpMessageConverter<?>> selectedConverterType,
                                                ServerHttpRequest request, ServerHttpResponse response) {
            // identifiers only: reading parameters for any other body (a problem document, say) could fail itself
            if (!(body instanceof long[] || body instanceof IdController.DecodedIdResponse)
                    || !(request instanceof ServletServerHttpRequest servlet)
                    || servlet.getServletRequest().getParameterValues(PARAMETER) == null) {
                return body;
            }
            boolean strings;
            try {
                strings = asStrings(servlet.getServletRequest());
            } catch (InvalidParameterException alreadyAnswered) {
                // the interceptor refused it first; this body is that refusal's problem document
                return body;
            }
            if (!strings) {
                return body;
            }
            if (body instanceof long[] ids) {
                return new IdList(ids);
            }
            if (body instanceof IdController.DecodedIdResponse d) {
                return new DecodedIdAsString(d.id(), d.timestamp(), d.workerId(), d.sequence());
            }
            return body;
        }
    }

    /** An array of identifiers written as a JSON array of strings. */
    record IdList(@com.fasterxml.jackson.annotation.JsonValue @IdAsString long[] ids) {
    }

    /** {@link IdController.DecodedIdResponse} with its identifier as a string. */
    record DecodedIdAsString(@IdAsString long id, String timestamp, long workerId, long sequence) {
    }
}

package io.github.idworker.server;

import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
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
 * The server's {@code ?as=} switch: every endpoint that answers identifiers ({@code /ids/next},
 * {@code /ids/segment/{tag}}, {@code /ids/sequence/{tag}}, {@code /ids/decode/{id}}, {@code /pools/{entity}/ids})
 * writes them as JSON strings in a form of {@link IdFormats} when asked with its name — {@code as=string} (or
 * {@code decimal}: {@code ["250593765314527232"]}, for JavaScript callers whose numbers lose digits beyond
 * 2<sup>53</sup>), {@code decimal-fixed}, {@code base36}, {@code base36-fixed}, {@code base62},
 * {@code base62-fixed}; {@code as=number} (or no {@code as}) keeps numbers. {@code /ids/decode/{id}} also reads its
 * {@code id} in that form. Any other value is refused with a 400 naming {@code as} and the values allowed
 * <em>before</em> the endpoint runs, so no identifier is taken for an answer that is never sent. Lists are written
 * by {@link IdsJsonConverter}.
 */
@Configuration(proxyBeanMethods = false)
public class IdFormatSwitch implements WebMvcConfigurer {

    /** The query parameter. */
    static final String PARAMETER = "as";
    /** The value that keeps JSON numbers. */
    static final String NUMBER = "number";
    /** The request attribute holding the form once read ({@link #NUMBER} for numbers). */
    private static final String ATTRIBUTE = IdFormatSwitch.class.getName() + ".form";

    private static final String ALLOWED = "must be given once, as one of " + NUMBER + ", "
            + String.join(", ", IdFormats.names());

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
                requested(request);
                return true;
            }
        });
    }

    /**
     * The string form the request asks for; null for JSON numbers (no {@code as}, or {@code as=number}).
     *
     * @throws InvalidParameterException naming {@code as} and the values allowed, for any other value
     */
    static @Nullable IdFormat requested(HttpServletRequest request) {
        // the interceptor, the controller and the body advice all ask: read the parameter once per request
        Object known = request.getAttribute(ATTRIBUTE);
        if (known != null) {
            return known instanceof IdFormat form ? form : null;
        }
        String[] values = request.getParameterValues(PARAMETER);
        if (values == null) {
            return null;
        }
        if (values.length != 1 || !(values[0].equals(NUMBER) || IdFormats.names().contains(values[0]))) {
            throw new InvalidParameterException(PARAMETER, ALLOWED);
        }
        IdFormat form = values[0].equals(NUMBER) ? null : IdFormats.named(values[0]);
        request.setAttribute(ATTRIBUTE, form != null ? form : NUMBER);
        return form;
    }

    /** Rewrites identifier bodies for a string form; everything else passes unchanged. */
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
            IdFormat form;
            try {
                form = requested(servlet.getServletRequest());
            } catch (InvalidParameterException alreadyAnswered) {
                // the interceptor refused it first; this body is that refusal's problem document
                return body;
            }
            if (form == null) {
                return body;
            }
            if (body instanceof long[] ids) {
                return new IdList(ids, form);
            }
            if (body instanceof IdController.DecodedIdResponse d) {
                return new DecodedIdAsString(form.format(d.id()), d.timestamp(), d.workerId(), d.sequence());
            }
            return body;
        }
    }

    /** An array of identifiers to be written as a JSON array of strings in {@code form}. */
    record IdList(long[] ids, IdFormat form) {

        /**
         * What Jackson writes should {@link IdsJsonConverter} not be chosen; the decimal form as
         * {@link Long#toString(long)}, sign and all, as this list has always been written.
         */
        @com.fasterxml.jackson.annotation.JsonValue
        String[] strings() {
            String[] out = new String[ids.length];
            boolean decimal = form.equals(IdFormats.decimal());
            for (int i = 0; i < ids.length; i++) {
                out[i] = decimal ? Long.toString(ids[i]) : form.format(ids[i]);
            }
            return out;
        }
    }

    /** {@link IdController.DecodedIdResponse} with its identifier in a string form. */
    record DecodedIdAsString(String id, String timestamp, long workerId, long sequence) {
    }
}

package io.github.idworker.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an endpoint that hands out numbers and so uses them up with every call it answers: it answers
 * {@code GET} only. {@code HEAD}, which Spring MVC would otherwise serve through the {@code GET} handler (taking
 * numbers and throwing them away), and every other method get 405 with {@code Allow: GET} before the endpoint runs
 * (see {@link IssuingMethodsFilter}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Issuing {
}

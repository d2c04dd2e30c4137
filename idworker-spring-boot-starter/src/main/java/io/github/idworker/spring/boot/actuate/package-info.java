/**
 * Actuator and Micrometer pieces: the idworker endpoint, health indicators and meters.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.boot.actuate;

import org.jspecify.annotations.NullMarked;

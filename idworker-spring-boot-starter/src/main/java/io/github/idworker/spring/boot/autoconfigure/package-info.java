/**
 * Spring Boot configuration of idworker's generators and stores, bound from {@code idworker.*}.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;

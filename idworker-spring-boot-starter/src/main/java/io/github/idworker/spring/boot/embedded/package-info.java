/**
 * An embedded Redis for zero-setup demos, samples and tests.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.boot.embedded;

import org.jspecify.annotations.NullMarked;

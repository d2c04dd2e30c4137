/**
 * The ID service's applications, grants and request admission (signature, nonce, rate).
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.service;

import org.jspecify.annotations.NullMarked;

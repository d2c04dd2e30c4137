/**
 * The contract kits of the ID service's stores and request gate.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test.service;

import org.jspecify.annotations.NullMarked;

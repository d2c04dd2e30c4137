/**
 * Shared pieces of the contract kits: clocks, names and checks.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test;

import org.jspecify.annotations.NullMarked;

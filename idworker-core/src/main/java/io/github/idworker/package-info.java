/**
 * The generator API ({@link io.github.idworker.IdGenerator}) and the one exception hierarchy every idworker failure belongs to.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker;

import org.jspecify.annotations.NullMarked;

/**
 * The segment allocator on a relational database.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.segment.jdbc;

import org.jspecify.annotations.NullMarked;

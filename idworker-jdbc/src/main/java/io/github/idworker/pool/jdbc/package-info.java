/**
 * The pools' durable reservations in a relational database.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.pool.jdbc;

import org.jspecify.annotations.NullMarked;

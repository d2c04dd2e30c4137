/**
 * JDBC plumbing the stores share: bounded statements over a {@code DataSource}, dialects, and the shipped DDL.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.jdbc;

import org.jspecify.annotations.NullMarked;

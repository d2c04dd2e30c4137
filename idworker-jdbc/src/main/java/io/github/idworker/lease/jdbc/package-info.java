/**
 * The worker-id lease centre on a relational database (H2, MySQL/MariaDB, PostgreSQL).
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.lease.jdbc;

import org.jspecify.annotations.NullMarked;

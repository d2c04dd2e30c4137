/**
 * The ID service's applications in a relational database.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.service.jdbc;

import org.jspecify.annotations.NullMarked;

/**
 * The Spring Data JDBC integration: {@link io.github.idworker.spring.entity.jdbc.GeneratedIdCallback} fills empty
 * ID fields of aggregates before they are converted for saving.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.entity.jdbc;

import org.jspecify.annotations.NullMarked;

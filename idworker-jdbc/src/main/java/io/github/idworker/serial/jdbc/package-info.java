/**
 * The serial rules and per-period high-waters in a relational database.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.serial.jdbc;

import org.jspecify.annotations.NullMarked;

/**
 * A plain-Java client of the idworker ID service: signed requests, a local buffer per entity and failover across independent environments.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.client;

import org.jspecify.annotations.NullMarked;

/**
 * The deployable idworker ID service: every mode over HTTP, signed applications, probes and a status page.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.server;

import org.jspecify.annotations.NullMarked;

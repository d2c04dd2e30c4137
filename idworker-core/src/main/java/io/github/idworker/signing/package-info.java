/**
 * The request-signing scheme of the ID service (HMAC-SHA256), shared by server and client.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.signing;

import org.jspecify.annotations.NullMarked;

/**
 * Segment mode: ranges allocated from a store and handed out in process, with prefetch.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.segment;

import org.jspecify.annotations.NullMarked;

/**
 * JMH benchmarks of idworker's generators against their peers (CosId, Leaf, uid-generator, raw Redis), measured in the same run.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.benchmarks;

import org.jspecify.annotations.NullMarked;

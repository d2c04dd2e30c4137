/**
 * The worker-id lease centre on ZooKeeper (Apache Curator).
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.lease.zookeeper;

import org.jspecify.annotations.NullMarked;

/**
 * The snowflake worker leasing its bits from ZooKeeper.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.snowflake.zookeeper;

import org.jspecify.annotations.NullMarked;

/**
 * The MyBatis integration: {@link io.github.idworker.spring.entity.mybatis.GeneratedIdInterceptor} fills empty
 * ID fields of the entities an {@code INSERT} statement is given, single or in lists and batches.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.entity.mybatis;

import org.jspecify.annotations.NullMarked;

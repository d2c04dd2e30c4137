/**
 * IDs filled into entities on insert: {@link io.github.idworker.spring.entity.GeneratedId} marks a field,
 * {@link io.github.idworker.spring.entity.IdSources} names where its IDs come from (the snowflake worker, a segment
 * tag, a Redis sequence or any {@code IdGenerator} bean), and {@link io.github.idworker.spring.entity.EntityIdFiller}
 * fills the fields that are still empty. The MyBatis, Spring Data JDBC and Hibernate integrations in the
 * sub-packages share them.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.entity;

import org.jspecify.annotations.NullMarked;

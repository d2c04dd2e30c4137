package io.github.idworker.spring.entity;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an entity field that is given an ID on insert when it is still empty ({@code null}, or {@code 0} for a
 * {@code long}); a value set by the application is kept. The field may be a {@code Long}, a {@code long} or a
 * {@code String} (the ID in decimal). Read by the MyBatis interceptor and the Spring Data JDBC callback that the
 * starter registers (docs/entity-ids.md); for Hibernate use
 * {@link io.github.idworker.spring.entity.hibernate.SnowflakeId} or
 * {@link io.github.idworker.spring.entity.hibernate.SourcedId}.
 *
 * <pre class="code">
 * public class Order {
 *     &#64;GeneratedId(generator = "segment:order")
 *     private Long id;
 * }
 * </pre>
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GeneratedId {

    /**
     * Where the IDs come from, as {@link IdSources} names it: {@code snowflake} (the default), {@code segment:<tag>},
     * {@code sequence:<tag>} or the name of an {@code IdGenerator} bean.
     */
    String generator() default IdSources.SNOWFLAKE;
}

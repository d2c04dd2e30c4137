package io.github.idworker.spring.entity.hibernate;

import org.hibernate.annotations.IdGeneratorType;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Hibernate entity's {@code @Id} ({@code Long} or {@code String}) as issued on persist by the ID source
 * it names, as {@link io.github.idworker.spring.entity.IdSources} reads names; an ID the application set is kept.
 *
 * <pre class="code">
 * &#64;Entity
 * public class Ticket {
 *     &#64;Id &#64;SourcedId("segment:ticket")
 *     private Long id;
 * }
 * </pre>
 */
@IdGeneratorType(IdSourceGenerator.class)
@Target({ElementType.FIELD, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SourcedId {

    /** {@code snowflake}, {@code segment:<tag>}, {@code sequence:<tag>} or the name of an {@code IdGenerator} bean. */
    String value();
}

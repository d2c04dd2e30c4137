package io.github.idworker.spring.entity.hibernate;

import org.hibernate.annotations.IdGeneratorType;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Hibernate entity's {@code @Id} ({@code Long} or {@code String}) as issued by the application's snowflake
 * worker ({@code @EnableIdWorker}) on persist; an ID the application set is kept. Other sources:
 * {@link SourcedId}.
 *
 * <pre class="code">
 * &#64;Entity
 * public class Invoice {
 *     &#64;Id &#64;SnowflakeId
 *     private Long id;
 * }
 * </pre>
 */
@IdGeneratorType(IdSourceGenerator.class)
@Target({ElementType.FIELD, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SnowflakeId {
}

package io.github.idworker.spring.annotation;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers ID pools: per-entity pools of IDs in a Redis list shared by every node, refilled ahead of demand
 * from a durable offset in the database, configured under {@code idworker.pool.*}.
 *
 * <pre class="code">
 * &#64;SpringBootApplication
 * &#64;EnableIdPools
 * public class Application { }
 *
 * &#64;Service
 * class Users {
 *     Users(IdPools pools) { … }
 *     long newUserId() { return pools.take("users"); }          // one ID
 *     long[] importBatch() { return pools.take("users", 500); }  // all 500 or an exception
 * }
 * </pre>
 * <pre class="code">
 * idworker:
 *   pool:
 *     entities:
 *       users:
 *         max-per-second: 2000
 *         max-per-request: 500
 * </pre>
 *
 * <ul>
 *   <li>Bean {@code poolStore} (a {@link io.github.idworker.pool.jdbc.JdbcPoolStore} over the application's
 *       single {@code DataSource}): the pool table, the source of truth for every entity's settings and its
 *       durable {@code current_offset}.</li>
 *   <li>Bean {@code idPools} (a {@link io.github.idworker.pool.redis.RedisIdPools} over the application's
 *       {@code RedisConnectionFactory}, an {@link io.github.idworker.pool.IdPools}): every entity under
 *       {@code idworker.pool.entities.<key>} is checked and registered at startup (the table wins for an entity
 *       it holds), and every node refills every entity of the table. Alarms (a pool running low, a take refused
 *       because it ran dry) go to the log, to every {@link io.github.idworker.pool.PoolAlarmListener} bean, as a
 *       {@code PoolAlarmEvent} to the application's listeners, and to the counter {@code idworker.pool.alarms}
 *       when Micrometer is present.</li>
 * </ul>
 *
 * Whatever the load and the number of nodes, no ID is handed out twice for an entity, also after Redis lost its
 * data; a take returns exactly the IDs asked for or throws; {@code MONOTONIC} IDs increase in take order across
 * nodes. Each bean backs off when the application declares a bean of the same name. Needs spring-data-redis
 * (spring-boot-starter-data-redis); independent of the other {@code @Enable…} annotations.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(IdPoolsConfigurationSelector.class)
public @interface EnableIdPools {
}

package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.segment.redis.RedisSequenceGenerators;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis bean of {@code @EnableSegmentIdGenerators(redisSequences = true)}: the {@link RedisSequenceGenerators}
 * lookup named {@code redisSequenceGenerators}, running the segment Lua scripts through a
 * {@link SpringRedisScriptExecutor} over the application's {@link RedisConnectionFactory} and refilling from
 * whichever bean is named {@code segmentAllocator}. Backs off when the application declares a bean of that name.
 *
 * <p>Steps at startup: bind {@code idworker.segment.redis.*} and {@code idworker.redis.key-prefix}; validate the
 * options; nothing is written to Redis until the first call of a tag. Keys of tag {@code order} are
 * {@code {prefix:segment:order}:range} and {@code :lock}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class RedisSequenceGeneratorsConfig {

    /** Name of the Redis lookup bean. */
    public static final String SEQUENCES_BEAN = "redisSequenceGenerators";

    @Bean(name = SEQUENCES_BEAN, destroyMethod = "close")
    @ConditionalOnMissingBean(name = SEQUENCES_BEAN)
    public RedisSequenceGenerators redisSequenceGenerators(ObjectProvider<RedisConnectionFactory> connectionFactories,
            @Qualifier(SegmentIdGeneratorsConfig.ALLOCATOR_BEAN) SegmentAllocator allocator,
            SegmentTagRegistration tags, IdWorkerProperties properties) {
        RedisSegmentOptions options = SegmentOptionsFactory.redis(properties);
        RedisConnectionFactory connectionFactory = connectionFactories.getIfUnique();
        if (connectionFactory == null) {
            throw new IdWorkerConfigurationException("spring.data.redis.host",
                    "@EnableSegmentIdGenerators(redisSequences = true) needs exactly one RedisConnectionFactory bean "
                            + "(or one marked @Primary), found " + connectionFactories.stream().count()
                            + "; add spring-boot-starter-data-redis and configure spring.data.redis.*, or declare a "
                            + "RedisSequenceGenerators bean named " + SEQUENCES_BEAN);
        }
        return new RedisSequenceGenerators(new SpringRedisScriptExecutor(connectionFactory), allocator, options);
    }
}

package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.serial.redis.RedisSerialOptions;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The bean of {@code @EnableSerialNumbers(mode = SerialMode.STRICT)}: a {@link RedisSerialNumbers} named
 * {@code serialNumbers}, running the serial Lua scripts through a {@link SpringRedisScriptExecutor} over the
 * application's {@link RedisConnectionFactory} (Jedis or Lettuce; no pool of its own) and reserving numbers
 * through whichever bean is named {@code serialStore}. Backs off when the application declares a bean of that
 * name.
 *
 * <p>Steps at startup: bind {@code idworker.serial.redis.*} and {@code idworker.redis.key-prefix}; validate the
 * options; nothing is written to Redis until a rule's first call. Steps at shutdown: close the numbers, so no
 * refill starts after the context closed.
 */
@Configuration(proxyBeanMethods = false)
public class RedisSerialNumbersConfig {

    @Bean(name = SerialStoreConfig.NUMBERS_BEAN, destroyMethod = "close")
    @ConditionalOnMissingBean(name = SerialStoreConfig.NUMBERS_BEAN)
    public RedisSerialNumbers serialNumbers(ObjectProvider<RedisConnectionFactory> connectionFactories,
                                            @Qualifier(SerialStoreConfig.STORE_BEAN) SerialStore store,
                                            @Qualifier(SerialStoreConfig.RULES_BEAN) SerialRules rules,
                                            SerialRuleRegistration registration, IdWorkerProperties properties) {
        RedisSerialOptions options = redisOptions(properties);
        RedisConnectionFactory connectionFactory = connectionFactories.getIfUnique();
        if (connectionFactory == null) {
            throw new IdWorkerConfigurationException("spring.data.redis.host",
                    "@EnableSerialNumbers(mode = SerialMode.STRICT) needs exactly one RedisConnectionFactory bean (or "
                            + "one marked @Primary), found " + connectionFactories.stream().count() + "; add "
                            + "spring-boot-starter-data-redis and configure spring.data.redis.*, use "
                            + "SerialMode.LOCAL, or declare a SerialNumbers bean named " + SerialStoreConfig.NUMBERS_BEAN);
        }
        return new RedisSerialNumbers(new SpringRedisScriptExecutor(connectionFactory), store, rules, options);
    }

    /**
     * The options of the strict serials from {@code idworker.serial.redis.*}; keys share
     * {@code idworker.redis.key-prefix} with the Redis centre.
     *
     * @throws IdWorkerConfigurationException naming the property of a value the numbers cannot run with
     */
    static RedisSerialOptions redisOptions(IdWorkerProperties properties) {
        SerialRedisProperties redis = properties.getSerial().getRedis();
        return RedisSerialOptions.builder()
                .keyPrefix(properties.getRedis().getKeyPrefix())
                .lockTtl(redis.getLockTtl())
                .maxWait(redis.getMaxWait())
                .refillCover(redis.getRefillCover())
                .checkRunId(redis.isCheckRunId())
                .build();
    }
}

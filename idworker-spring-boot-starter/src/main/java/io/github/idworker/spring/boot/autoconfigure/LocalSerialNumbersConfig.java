package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.snowflake.MillisClock;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The bean of {@code @EnableSerialNumbers(mode = SerialMode.LOCAL)}: a {@link LocalSerialNumbers} named
 * {@code serialNumbers} that hands out serials in process from ranges reserved through whichever bean is named
 * {@code serialStore}. Backs off when the application declares a bean of that name. No string is handed out
 * twice across nodes and restarts; numbers increase per node only. Closed with the context, so no further range
 * is reserved.
 */
@Configuration(proxyBeanMethods = false)
public class LocalSerialNumbersConfig {

    @Bean(name = SerialStoreConfig.NUMBERS_BEAN, destroyMethod = "close")
    @ConditionalOnMissingBean(name = SerialStoreConfig.NUMBERS_BEAN)
    public LocalSerialNumbers serialNumbers(@Qualifier(SerialStoreConfig.STORE_BEAN) SerialStore store,
                                            @Qualifier(SerialStoreConfig.RULES_BEAN) SerialRules rules,
                                            SerialRuleRegistration registration) {
        return new LocalSerialNumbers(store, rules, MillisClock.SYSTEM);
    }
}

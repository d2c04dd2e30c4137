package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.spring.entity.EntityIdFiller;
import io.github.idworker.spring.entity.IdSources;
import io.github.idworker.spring.entity.SpringIdSources;
import io.github.idworker.spring.entity.hibernate.IdSourceGenerator;
import io.github.idworker.spring.entity.jdbc.GeneratedIdCallback;
import io.github.idworker.spring.entity.mybatis.GeneratedIdInterceptor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;

/**
 * IDs filled into entities on insert: the shared {@link IdSources} (bean {@code idSources}, names as
 * {@link SpringIdSources} reads them) and {@link EntityIdFiller}, and, each only when its library is on the class
 * path, the MyBatis {@link GeneratedIdInterceptor}, the Spring Data JDBC {@link GeneratedIdCallback} and the
 * Hibernate setting that {@code @SnowflakeId} and {@code @SourcedId} read. Each bean backs off when the
 * application declares one of its type; {@code idworker.entity-ids.enabled=false} switches all of them off.
 * A {@code @GeneratedId} source is looked up at the first insert of its class, and the sources of
 * {@code idworker.entity-ids.fields} once every singleton exists, so it needs no {@code @Enable…} annotation of its
 * own: an entity names a generator that one of them registers. Each nested part is guarded by a condition on a class
 * <em>name</em>, so that a missing optional jar is never loaded.
 */
@AutoConfiguration
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "idworker.entity-ids.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class EntityIdsAutoConfiguration {

    static final String MYBATIS = "org.apache.ibatis.plugin.Interceptor";
    static final String DATA_JDBC = "org.springframework.data.relational.core.mapping.event.BeforeConvertCallback";
    static final String HIBERNATE = "org.hibernate.generator.BeforeExecutionGenerator";
    static final String BOOT_HIBERNATE =
            "org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer";

    /** ID source names ({@code snowflake}, {@code segment:order}, …) over the generators of this context. */
    @Bean
    @ConditionalOnMissingBean
    public IdSources idSources(ListableBeanFactory beans) {
        return new SpringIdSources(beans);
    }

    /** Fills {@code @GeneratedId} fields and those of {@code idworker.entity-ids.fields}. */
    @Bean
    @ConditionalOnMissingBean
    public EntityIdFiller entityIdFiller(IdSources sources, IdWorkerProperties properties,
                                         ResourceLoader resourceLoader) {
        return new EntityIdFiller(sources, properties.getEntityIds().getFields(), resourceLoader.getClassLoader());
    }

    /**
     * Resolves the sources of {@code idworker.entity-ids.fields} once every singleton exists, so that a name no
     * generator answers to fails the startup, not the first insert; resolving earlier would create generator
     * beans from inside MyBatis' or Hibernate's early initialisation.
     */
    @Bean
    static SmartInitializingSingleton entityIdSourcesCheck(ObjectProvider<EntityIdFiller> filler) {
        return () -> filler.ifAvailable(EntityIdFiller::checkConfiguredSources);
    }

    /** MyBatis: Spring Boot's MyBatis auto-configuration adds every {@code Interceptor} bean to its factory. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = MYBATIS)
    static class MyBatisConfig {

        @Bean
        @ConditionalOnMissingBean
        GeneratedIdInterceptor generatedIdInterceptor(EntityIdFiller filler) {
            return new GeneratedIdInterceptor(filler);
        }
    }

    /** Spring Data JDBC: entity callbacks are found among the beans of the context. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = DATA_JDBC)
    static class DataJdbcConfig {

        @Bean
        @ConditionalOnMissingBean
        GeneratedIdCallback generatedIdCallback(EntityIdFiller filler,
                                                ObjectProvider<RelationalMappingContext> mappingContext) {
            return new GeneratedIdCallback(filler, mappingContext);
        }
    }

    /** Hibernate: the {@link IdSources} handed to the generators through the session factory's settings. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {HIBERNATE, BOOT_HIBERNATE})
    static class HibernateConfig {

        @Bean
        HibernatePropertiesCustomizer idworkerIdSourcesCustomizer(IdSources sources) {
            return settings -> settings.put(IdSourceGenerator.SOURCES_SETTING, sources);
        }
    }
}

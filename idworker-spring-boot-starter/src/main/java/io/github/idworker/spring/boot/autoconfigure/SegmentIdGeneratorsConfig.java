package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/**
 * The in-process beans of {@code @EnableSegmentIdGenerators}: a {@link JdbcSegmentAllocator} named
 * {@code segmentAllocator} over the application's single {@link DataSource}, and the {@link SegmentIdGenerators}
 * lookup named {@code segmentIdGenerators}, which creates one double-buffered {@link SegmentIdGenerator} per tag
 * on first use. Each backs off when the application declares a bean of that name; the lookup takes its ranges
 * from whichever bean is named {@code segmentAllocator}.
 *
 * <p>Steps at startup: bind {@code idworker.segment.*} and the timeouts {@code idworker.jdbc.statement-timeout}
 * and {@code idworker.jdbc.network-timeout}; create the segment table when
 * {@code idworker.segment.initialize-schema} says so (after any {@code spring.sql.init} scripts); check the table
 * exists; register the tags listed under {@code idworker.segment.tags}; build and validate the generators'
 * options. Steps at shutdown: close every generator, so no further range is loaded.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class SegmentIdGeneratorsConfig {

    /** Name of the allocator bean; declare your own {@code SegmentAllocator} with this name to replace it. */
    public static final String ALLOCATOR_BEAN = "segmentAllocator";

    /** Name of the in-process lookup bean. */
    public static final String GENERATORS_BEAN = "segmentIdGenerators";

    @Bean(name = ALLOCATOR_BEAN)
    @ConditionalOnMissingBean(name = ALLOCATOR_BEAN)
    @DependsOnDatabaseInitialization
    public JdbcSegmentAllocator segmentAllocator(ObjectProvider<DataSource> dataSources, IdWorkerProperties properties) {
        DataSource dataSource = SingleDataSource.require(dataSources, "@EnableSegmentIdGenerators",
                "a SegmentAllocator bean named " + ALLOCATOR_BEAN);
        SegmentProperties segment = properties.getSegment();
        JdbcProperties jdbc = properties.getJdbc();
        JdbcSegmentAllocator allocator = new JdbcSegmentAllocator(dataSource, segment.getTable(), segment.isAutoCreate(),
                new JdbcTimeouts(jdbc.getStatementTimeout(), jdbc.getNetworkTimeout()));
        if (segment.getInitializeSchema().creates(dataSource)) {
            allocator.createSchemaIfMissing();
        }
        allocator.verifySchema();
        return allocator;
    }

    /** Registers the configured tags once, before either lookup hands out a generator. */
    @Bean
    SegmentTagRegistration segmentTagRegistration(@Qualifier(ALLOCATOR_BEAN) SegmentAllocator allocator,
                                                  IdWorkerProperties properties) {
        return new SegmentTagRegistration(allocator, properties.getSegment());
    }

    @Bean(name = GENERATORS_BEAN, destroyMethod = "close")
    @ConditionalOnMissingBean(name = GENERATORS_BEAN)
    public SegmentIdGenerators segmentIdGenerators(@Qualifier(ALLOCATOR_BEAN) SegmentAllocator allocator,
                                                   SegmentTagRegistration tags, IdWorkerProperties properties) {
        SegmentGeneratorOptions options = SegmentOptionsFactory.inProcess(properties.getSegment());
        return new SegmentIdGenerators(tag -> new SegmentIdGenerator(allocator, tag, options));
    }
}

package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.spring.entity.AmbiguousIdSourceException;
import io.github.idworker.spring.entity.EntityIdFiller;
import io.github.idworker.spring.entity.GeneratedId;
import io.github.idworker.spring.entity.IdSources;
import io.github.idworker.spring.entity.jdbc.GeneratedIdCallback;
import io.github.idworker.spring.entity.jpa.Invoice;
import io.github.idworker.spring.entity.mybatis.GeneratedIdInterceptor;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.apache.ibatis.plugin.Interceptor;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.relational.core.mapping.event.BeforeConvertCallback;
import redis.clients.jedis.Jedis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The entity-ID auto-configuration: registered in the starter's imports, each integration only with its library,
 * all off by property; the names {@link IdSources} understands, its errors (an ambiguous snowflake worker among
 * them), the configured field mapping, its property names and the startup checks of its sources and types; a
 * Redis sequence filling a list in one call (embedded Redis, H2).
 */
class EntityIdsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EntityIdsAutoConfiguration.class));

    /** No annotation: filled only through idworker.entity-ids.fields. */
    static class Plain {
        Long id;
    }

    static class Counted {
        @GeneratedId(generator = "counter")
        String id;
        @GeneratedId(generator = "counter")
        long number;
    }

    static class Sequenced {
        @GeneratedId(generator = "sequence:entity-ids")
        Long id;
    }

    static class Wrong {
        @GeneratedId
        Integer id;
    }

    /** No annotation, and a type no ID fits: refused when configured. */
    static class PlainWrong {
        Integer id;
    }

    static class Snowflaked {
        @GeneratedId
        Long id;
    }

    @Test
    void isRegisteredAsAnAutoConfiguration() throws Exception {
        String imports = new String(getClass().getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports").readAllBytes());
        assertThat(imports.lines()).contains(EntityIdsAutoConfiguration.class.getName());
    }

    @Test
    void eachIntegrationNeedsItsLibraryAndAllCanBeSwitchedOff() {
        runner.run(context -> assertThat(context).hasSingleBean(IdSources.class).hasSingleBean(EntityIdFiller.class)
                .hasSingleBean(GeneratedIdInterceptor.class).hasSingleBean(GeneratedIdCallback.class)
                .hasSingleBean(HibernatePropertiesCustomizer.class));
        runner.withClassLoader(new FilteredClassLoader(Interceptor.class, BeforeConvertCallback.class,
                        HibernatePropertiesCustomizer.class))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(EntityIdFiller.class)
                        .doesNotHaveBean(GeneratedIdInterceptor.class).doesNotHaveBean(GeneratedIdCallback.class)
                        .doesNotHaveBean(HibernatePropertiesCustomizer.class));
        runner.withPropertyValues("idworker.entity-ids.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(IdSources.class)
                        .doesNotHaveBean(GeneratedIdInterceptor.class));
    }

    @Test
    void hibernateIsHandedTheSources() {
        runner.run(context -> {
            Map<String, Object> settings = new HashMap<>();
            context.getBean(HibernatePropertiesCustomizer.class).customize(settings);
            assertThat(settings).containsEntry("io.github.idworker.id-sources", context.getBean(IdSources.class));
        });
    }

    @Test
    void aBeanNameIsASourceAndASetIdIsKept() {
        AtomicLong next = new AtomicLong(100);
        runner.withBean("counter", IdGenerator.class, () -> next::incrementAndGet).run(context -> {
            EntityIdFiller filler = context.getBean(EntityIdFiller.class);
            Counted fresh = new Counted();
            Counted set = new Counted();
            set.id = "7";
            set.number = 8;
            assertThat(filler.fillAll(List.of(fresh, set, fresh))).isEqualTo(2);
            assertThat(fresh.id).isEqualTo("101");
            assertThat(fresh.number).isEqualTo(102);
            assertThat(set.id).isEqualTo("7");
            assertThat(set.number).isEqualTo(8);
        });
    }

    @Test
    void unknownSourcesNameWhatIsMissingAndTheForms() {
        runner.run(context -> {
            IdSources sources = context.getBean(IdSources.class);
            assertThatThrownBy(() -> sources.get("nope")).isInstanceOf(IdWorkerConfigurationException.class)
                    .hasMessageContaining("'nope'").hasMessageContaining("'segment:<tag>'");
            assertThatThrownBy(() -> sources.get("snowflake")).hasMessageContaining("AbstractIdWorker bean, found 0")
                    .hasMessageContaining("@EnableIdWorker");
            assertThatThrownBy(() -> sources.get("segment:")).hasMessageContaining("no tag after 'segment:'");
            assertThatThrownBy(() -> context.getBean(EntityIdFiller.class).fill(new Wrong()))
                    .hasMessageContaining(Wrong.class.getName() + ".id is a java.lang.Integer");
        });
    }

    @Test
    void configuredFieldsAreFilledAndKnownAndAMisspeltOneFailsTheStartup() {
        String field = "idworker.entity-ids.fields[" + Plain.class.getName() + ".id]";
        AtomicLong next = new AtomicLong();
        runner.withBean("counter", IdGenerator.class, () -> next::incrementAndGet)
                .withPropertyValues(field + "=counter").run(context -> {
                    Plain plain = new Plain();
                    context.getBean(EntityIdFiller.class).fill(plain);
                    assertThat(plain.id).isEqualTo(1L);
                    assertThat(IdworkerPropertyNames.of(context.getEnvironment()).unknown(List.of())).isEmpty();
                });
        String misspelt = "idworker.entity-ids.fields[" + Plain.class.getName() + ".ident]";
        runner.withPropertyValues(misspelt + "=counter").run(context -> {
            IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(e.getProperty()).isEqualTo(misspelt);
            assertThat(e.getMessage()).contains("ident");
        });
    }

    @Test
    void aConfiguredSourceNoGeneratorAnswersToFailsTheStartup() {
        String field = "idworker.entity-ids.fields[" + Plain.class.getName() + ".id]";
        for (String source : List.of("segment:", "sequence:", "nope", "snowflake")) {
            runner.withPropertyValues(field + "=" + source).run(context -> {
                IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                        IdWorkerConfigurationException.class);
                assertThat(e.getProperty()).as(source).isEqualTo(field);
                assertThat(e.getMessage()).as(source).contains("'" + source + "'", "'segment:<tag>'",
                        "'sequence:<tag>'", "IdGenerator bean");
            });
        }
    }

    @Test
    void aConfiguredFieldOfTheWrongTypeFailsTheStartup() {
        String field = "idworker.entity-ids.fields[" + PlainWrong.class.getName() + ".id]";
        runner.withPropertyValues(field + "=snowflake").run(context -> {
            IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(e.getProperty()).isEqualTo(field);
            assertThat(e.getMessage()).contains("is a java.lang.Integer", "a Long, a long or a String");
        });
    }

    @Test
    void twoSnowflakeWorkersAndNoPrimaryOneAreNamedAsAmbiguous() {
        String url = TestNames.h2Url();
        ApplicationContextRunner twoWorkers = runner
                .withBean("worker", AbstractIdWorker.class, () -> unstartedWorker(url))
                .withBean("handBuiltWorker", AbstractIdWorker.class, () -> unstartedWorker(url));
        twoWorkers.run(context -> {
            AmbiguousIdSourceException e = StartupFailures.cause(
                    catchThrowable(() -> context.getBean(EntityIdFiller.class).fill(new Snowflaked())),
                    AmbiguousIdSourceException.class);
            assertThat(e.getSource()).isEqualTo("snowflake");
            assertThat(e.getBeanNames()).containsExactlyInAnyOrder("worker", "handBuiltWorker");
            assertThat(e.getMessage()).contains("@Primary", "defaultCandidate = false");
        });
        String field = "idworker.entity-ids.fields[" + Plain.class.getName() + ".id]";
        twoWorkers.withPropertyValues(field + "=snowflake").run(context -> {
            IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(e.getProperty()).isEqualTo(field);
            assertThat(e.getCause()).isInstanceOf(AmbiguousIdSourceException.class);
        });
    }

    /** A worker that is never started, so it borrows nothing: the lookup only needs the bean to exist. */
    private static AbstractIdWorker unstartedWorker(String url) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        return new DBIdWorker(new JdbcSequenceManager(dataSource), WorkerOptions.builder().build());
    }

    @Test
    void aRedisSequenceFillsAListInOneCallInOrder() {
        String prefix = "t-" + UUID.randomUUID().toString().substring(0, 12);
        try {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            DataRedisAutoConfiguration.class))
                    .withUserConfiguration(SequencesApp.class)
                    .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                            "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port(),
                            "idworker.redis.key-prefix=" + prefix, "idworker.segment.auto-create=true",
                            "idworker.segment.redis.max-wait=30s")
                    .run(context -> {
                        List<Sequenced> list = List.of(new Sequenced(), new Sequenced(), new Sequenced());
                        assertThat(context.getBean(EntityIdFiller.class).fillAll(list)).isEqualTo(3);
                        long first = list.get(0).id;
                        assertThat(list).extracting(s -> s.id).containsExactly(first, first + 1, first + 2);
                    });
        } finally {
            try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                jedis.del(RedisSegmentIdGenerator.keyOf(prefix, "entity-ids", "range"),
                        RedisSegmentIdGenerator.keyOf(prefix, "entity-ids", "lock"));
            }
        }
    }

    @EnableSegmentIdGenerators(redisSequences = true)
    static class SequencesApp {
    }

    @Test
    void hibernateWithoutTheSourcesFailsAnInsertNamingTheSetting() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class))
                .withUserConfiguration(JpaApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    EntityManager em = context.getBean(EntityManagerFactory.class).createEntityManager();
                    Throwable failure;
                    try {
                        em.getTransaction().begin();
                        failure = catchThrowable(() -> em.persist(new Invoice("x")));
                    } finally {
                        em.close();
                    }
                    IdWorkerConfigurationException e = StartupFailures.cause(failure,
                            IdWorkerConfigurationException.class);
                    assertThat(e.getProperty()).isEqualTo("io.github.idworker.id-sources");
                    assertThat(e.getMessage()).contains(Invoice.class.getName() + ".id");
                });
    }

    @EntityScan(basePackageClasses = Invoice.class)
    static class JpaApp {
    }
}

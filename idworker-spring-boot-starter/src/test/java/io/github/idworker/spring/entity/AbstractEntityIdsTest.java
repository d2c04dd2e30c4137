package io.github.idworker.spring.entity;

import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.boot.autoconfigure.EntityIdsAutoConfiguration;
import io.github.idworker.spring.entity.jpa.Invoice;
import io.github.idworker.spring.entity.jpa.Receipt;
import io.github.idworker.spring.entity.mybatis.InsertRefusedException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.hibernate.boot.model.naming.Identifier;
import org.hibernate.boot.model.naming.PhysicalNamingStrategySnakeCaseImpl;
import org.hibernate.engine.jdbc.env.spi.JdbcEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.jdbc.autoconfigure.DataJdbcRepositoriesAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.jdbc.core.JdbcAggregateTemplate;
import org.springframework.data.relational.core.mapping.NamingStrategy;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * IDs filled on insert through each integration, in one application over one database that a subclass names: a
 * MyBatis insert, list insert and batch, and the inserts it refuses (keys written back, entities it cannot reach);
 * Spring Data JDBC {@code save}, {@code saveAll} and {@code insert}, and an update that fills nothing;
 * Hibernate {@code persist}; from the snowflake worker and from segment tags. An ID set by the application is kept
 * every time. Tables are named per run and dropped afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractEntityIdsTest {

    private final String prefix = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String orders = prefix + "_order";
    private final String tickets = prefix + "_ticket";
    private final String shipments = prefix + "_shipment";
    private ConfigurableApplicationContext context;
    private JdbcTemplate jdbc;

    /** The JDBC URL of the database under test. */
    abstract String url();

    /** Its user; the password is empty. */
    abstract String user();

    @BeforeAll
    void start() {
        context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF).properties(
                        "spring.datasource.url=" + url(), "spring.datasource.username=" + user(),
                        "spring.datasource.password=", "test.prefix=" + prefix,
                        "spring.jpa.hibernate.ddl-auto=create-drop",
                        "idworker.namespace=" + prefix, "idworker.jdbc.table=" + prefix + "_slot",
                        "idworker.jdbc.initialize-schema=always", "idworker.segment.table=" + prefix + "_segment",
                        "idworker.segment.initialize-schema=always", "idworker.segment.auto-create=true",
                        "idworker.lease.ttl=2002ms", "idworker.lease.heartbeat-interval=1001ms",
                        "idworker.lease.max-skew=10ms", "idworker.lease.loss-guard=2012ms",
                        "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=3s")
                .run();
        jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE " + orders + " (id BIGINT PRIMARY KEY, name VARCHAR(64))");
        jdbc.execute("CREATE TABLE " + tickets + " (id VARCHAR(20) PRIMARY KEY, name VARCHAR(64))");
        jdbc.execute("CREATE TABLE " + shipments
                + " (id BIGINT PRIMARY KEY, tracking_no BIGINT, name VARCHAR(64))");
        SqlSessionFactory sessions = context.getBean(SqlSessionFactory.class);
        sessions.getConfiguration().addMapper(OrderMapper.class);
    }

    @AfterAll
    void dropTables() throws Exception {
        if (context != null) {
            context.close();
        }
        try (Connection c = DriverManager.getConnection(url(), user(), "");
             Statement s = c.createStatement()) {
            for (String t : List.of(orders, tickets, shipments, prefix + "_slot", prefix + "_slot_ns", prefix + "_segment",
                    prefix + "_jpa_invoice", prefix + "_jpa_receipt")) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }

    @Test
    void myBatisFillsAnInsertKeepsAnAssignedIdAndLeavesAnUpdateAlone() {
        String name = name();
        Order fresh = new Order(name);
        Order assigned = new Order(name);
        assigned.setId(42L);
        try (SqlSession session = sessions().openSession(true)) {
            OrderMapper mapper = session.getMapper(OrderMapper.class);
            mapper.insert(orders, fresh);
            mapper.insert(orders, assigned);
            Order notInserted = new Order(name);
            mapper.update(orders, notInserted);
            assertThat(notInserted.getId()).as("an UPDATE's parameter is left alone").isNull();
        }
        assertThat(fresh.getId()).isNotNull().isPositive().isNotEqualTo(42L);
        assertThat(assigned.getId()).isEqualTo(42L);
        assertThat(idsNamed(orders, name)).containsExactlyInAnyOrder(fresh.getId().toString(), "42");
    }

    @Test
    void myBatisFillsAListInsertAndABatch() {
        String name = name();
        List<Order> list = orders(name, 5);
        list.get(2).setId(7L);
        List<Order> batch = orders(name, 4);
        try (SqlSession session = sessions().openSession(true)) {
            session.getMapper(OrderMapper.class).insertAll(orders, list);
        }
        try (SqlSession session = sessions().openSession(ExecutorType.BATCH, false)) {
            OrderMapper mapper = session.getMapper(OrderMapper.class);
            batch.forEach(o -> mapper.insert(orders, o));
            session.flushStatements();
            session.commit();
        }
        List<Order> all = Stream.concat(list.stream(), batch.stream()).toList();
        assertThat(all).extracting(Order::getId).doesNotContainNull().doesNotHaveDuplicates();
        assertThat(list.get(2).getId()).isEqualTo(7L);
        assertThat(idsNamed(orders, name)).containsExactlyInAnyOrderElementsOf(
                all.stream().map(o -> o.getId().toString()).toList());
    }

    @Test
    void myBatisFillsFromASegmentTag() {
        String name = name();
        Ticket first = new Ticket(name);
        Ticket second = new Ticket(name);
        try (SqlSession session = sessions().openSession(true)) {
            OrderMapper mapper = session.getMapper(OrderMapper.class);
            mapper.insertTicket(tickets, first);
            mapper.insertTicket(tickets, second);
        }
        // one segment tag per node: dense and increasing
        assertThat(Long.parseLong(second.getId())).isEqualTo(Long.parseLong(first.getId()) + 1);
        assertThat(idsNamed(tickets, name)).containsExactlyInAnyOrder(first.getId(), second.getId());
    }

    @Test
    void dataJdbcFillsSaveAllAndInsertAndKeepsAnAssignedId() {
        JdbcAggregateTemplate template = context.getBean(JdbcAggregateTemplate.class);
        String name = name();
        List<Order> saved = template.saveAll(orders(name, 4));
        Ticket ticket = template.save(new Ticket(name));
        Order assigned = new Order(name);
        assigned.setId(43L);
        template.insert(assigned);
        assertThat(saved).extracting(Order::getId).doesNotContainNull().doesNotHaveDuplicates();
        assertThat(ticket.getId()).isNotBlank();
        assertThat(assigned.getId()).isEqualTo(43L);
        List<String> expected = new ArrayList<>(saved.stream().map(o -> o.getId().toString()).toList());
        expected.add("43");
        assertThat(idsNamed(orders, name)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(idsNamed(tickets, name)).containsExactly(ticket.getId());
    }

    @Test
    void myBatisRefusesAnInsertThatWritesKeysBackOverTheFilledIds() {
        String name = name();
        List<Order> list = orders(name, 3);
        Order single = new Order(name);
        try (SqlSession session = sessions().openSession(true)) {
            OrderMapper mapper = session.getMapper(OrderMapper.class);
            InsertRefusedException generated = refusal(() -> mapper.insertAllReturningKeys(orders, list));
            assertThat(generated.getStatementId()).isEqualTo(OrderMapper.class.getName() + ".insertAllReturningKeys");
            assertThat(generated.getField()).isEqualTo(Order.class.getName() + ".id");
            assertThat(generated.getMessage()).contains("'orders.id'", "drop useGeneratedKeys");
            InsertRefusedException selected = refusal(() -> mapper.insertSelectingKey(orders, single));
            assertThat(selected.getMessage()).contains("'order.id'",
                    OrderMapper.class.getName() + ".insertSelectingKey");
        }
        assertThat(list).extracting(Order::getId).as("refused before any ID is drawn").containsOnlyNulls();
        assertThat(single.getId()).isNull();
        assertThat(idsNamed(orders, name)).as("nothing inserted").isEmpty();
    }

    @Test
    void myBatisRefusesEntitiesInsideAParameterObjectRatherThanInsertNullIds() {
        String name = name();
        OrderBatch batch = new OrderBatch(orders, orders(name, 2));
        try (SqlSession session = sessions().openSession(true)) {
            OrderMapper mapper = session.getMapper(OrderMapper.class);
            assertThat(refusal(() -> mapper.insertBatch(batch)).getMessage()).contains("#{__frch_o_",
                    Order.class.getName() + ".id", "@Param");
            assertThat(refusal(() -> mapper.insertNested(orders, batch)).getField())
                    .isEqualTo(Order.class.getName() + ".id");
        }
        assertThat(batch.getOrders()).extracting(Order::getId).containsOnlyNulls();
        assertThat(idsNamed(orders, name)).isEmpty();
    }

    @Test
    void dataJdbcFillsANewAggregateAndLeavesAnUpdatedOneAsItIs() {
        JdbcAggregateTemplate template = context.getBean(JdbcAggregateTemplate.class);
        Shipment shipment = template.save(new Shipment(name()));
        assertThat(shipment.getId()).isNotNull();
        assertThat(shipment.getTrackingNo()).as("filled on insert").isNotNull();
        shipment.setTrackingNo(null);
        template.save(shipment);
        assertThat(shipment.getTrackingNo()).as("an update fills nothing").isNull();
        assertThat(jdbc.queryForObject("SELECT tracking_no FROM " + shipments + " WHERE id = ?", Long.class,
                shipment.getId())).isNull();
    }

    /** The refusal a MyBatis call failed with (MyBatis wraps it in its own exception). */
    private static InsertRefusedException refusal(ThrowingCallable call) {
        Throwable failure = catchThrowable(call);
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InsertRefusedException refused) {
                return refused;
            }
        }
        throw new AssertionError("not refused by the interceptor: " + failure, failure);
    }

    @Test
    void hibernateFillsPersistAndKeepsAnAssignedId() {
        String name = name();
        Invoice fresh = new Invoice(name);
        Invoice assigned = new Invoice(name);
        assigned.setId(44L);
        Receipt receipt = new Receipt(name);
        EntityManager em = context.getBean(EntityManagerFactory.class).createEntityManager();
        try {
            em.getTransaction().begin();
            em.persist(fresh);
            em.persist(assigned);
            em.persist(receipt);
            em.getTransaction().commit();
        } finally {
            em.close();
        }
        assertThat(fresh.getId()).isNotNull().isPositive().isNotEqualTo(44L);
        assertThat(assigned.getId()).isEqualTo(44L);
        assertThat(receipt.getId()).isNotBlank();
        assertThat(idsNamed(prefix + "_jpa_invoice", name)).containsExactlyInAnyOrder(fresh.getId().toString(), "44");
        assertThat(idsNamed(prefix + "_jpa_receipt", name)).containsExactly(receipt.getId());
    }

    private SqlSessionFactory sessions() {
        return context.getBean(SqlSessionFactory.class);
    }

    private List<String> idsNamed(String table, String name) {
        return jdbc.queryForList("SELECT id FROM " + table + " WHERE name = ?", Object.class, name).stream()
                .map(String::valueOf).toList();
    }

    private static List<Order> orders(String name, int count) {
        List<Order> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(new Order(name));
        }
        return out;
    }

    private static String name() {
        return UUID.randomUUID().toString();
    }

    /** The application: every integration at once, the worker and segments over the database under test. */
    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    @EnableSegmentIdGenerators
    @EntityScan(basePackageClasses = Invoice.class)
    @AutoConfigurationPackage
    @ImportAutoConfiguration({DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class, MybatisAutoConfiguration.class,
            DataJdbcRepositoriesAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
            EntityIdsAutoConfiguration.class})
    static class App {

        /** Spring Data JDBC's tables: {@code <prefix>_order}, {@code <prefix>_ticket}, {@code <prefix>_shipment}. */
        @Bean
        NamingStrategy testTables(Environment env) {
            String prefix = env.getRequiredProperty("test.prefix");
            return new NamingStrategy() {
                @Override
                public String getTableName(Class<?> type) {
                    return prefix + "_" + type.getSimpleName().toLowerCase();
                }
            };
        }

        /** Hibernate's tables: {@code <prefix>_jpa_invoice}, {@code <prefix>_jpa_receipt}. */
        @Bean
        PhysicalNamingStrategySnakeCaseImpl testJpaTables(Environment env) {
            String prefix = env.getRequiredProperty("test.prefix");
            return new PhysicalNamingStrategySnakeCaseImpl() {
                @Override
                public Identifier toPhysicalTableName(Identifier logical, JdbcEnvironment environment) {
                    return Identifier.toIdentifier(prefix + "_" + logical.getText());
                }
            };
        }
    }
}

package io.github.idworker.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An order's {@code created} event gets its primary key on insert from the snowflake worker, through the starter's
 * MyBatis interceptor, though {@link OrderService} never asks for one ({@link OrderEvent}'s {@code @GeneratedId}).
 * The sample as it starts without a profile; the same context as {@link OrderEndpointTest}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.data.redis.port=0")
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OrderEventIdTest {

    @Autowired
    OrderService orders;
    @Autowired
    DataSource dataSource;

    @Test
    void anOrdersEventIsGivenASnowflakeIdOnInsert() {
        Order first = orders.create(new NewOrder("ada", new BigDecimal("1.50")));
        Order second = orders.create(new NewOrder("bob", new BigDecimal("2.50")));

        List<OrderEvent> events = orders.events(first.id());
        assertThat(events).hasSize(1);
        OrderEvent event = events.get(0);
        assertThat(event.getKind()).isEqualTo("created");
        assertThat(event.getId()).isNotNull().isPositive().isNotEqualTo(first.id());
        // a snowflake ID: taken after the order's own ID from the same worker, so greater
        assertThat(event.getId()).isGreaterThan(first.id());
        Long secondEvent = orders.events(second.id()).get(0).getId();
        assertThat(secondEvent).isGreaterThan(event.getId());
        assertThat(JdbcClient.create(dataSource).sql("SELECT id FROM order_events WHERE order_id = ?")
                .param(first.id()).query(Long.class).single()).isEqualTo(event.getId());
    }
}

package io.github.idworker.sample;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

import java.util.List;

/**
 * The statements on the table {@code order_events} ({@code schema.sql}). {@code #{id}} is never null: the
 * starter's MyBatis interceptor fills an event's {@code @GeneratedId} field before the insert runs.
 */
@Mapper
public interface OrderEventMapper {

    @Insert("""
            INSERT INTO order_events (id, order_id, kind, happened_at)
            VALUES (#{id}, #{orderId}, #{kind}, #{happenedAt})
            """)
    void insert(OrderEvent event);

    /** The events of an order, oldest first. */
    @Select("SELECT id, order_id, kind, happened_at FROM order_events WHERE order_id = #{orderId} ORDER BY id")
    List<OrderEvent> findByOrderId(@Param("orderId") long orderId);
}

package io.github.idworker.spring.entity;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.SelectKey;
import org.apache.ibatis.annotations.Update;

import java.util.List;

/** MyBatis statements over a table named per test run. */
public interface OrderMapper {

    @Insert("INSERT INTO ${table} (id, name) VALUES (#{order.id}, #{order.name})")
    int insert(@Param("table") String table, @Param("order") Order order);

    @Insert("<script>INSERT INTO ${table} (id, name) VALUES <foreach collection='orders' item='o' separator=','>"
            + "(#{o.id}, #{o.name})</foreach></script>")
    int insertAll(@Param("table") String table, @Param("orders") List<Order> orders);

    @Insert("INSERT INTO ${table} (id, name) VALUES (#{order.id}, #{order.name})")
    int insertTicket(@Param("table") String table, @Param("order") Ticket order);

    @Insert("<script>INSERT INTO ${table} (id, name) VALUES <foreach collection='orders' item='o' separator=','>"
            + "(#{o.id}, #{o.name})</foreach></script>")
    @Options(useGeneratedKeys = true, keyProperty = "orders.id")
    int insertAllReturningKeys(@Param("table") String table, @Param("orders") List<Order> orders);

    @Insert("INSERT INTO ${table} (id, name) VALUES (#{order.id}, #{order.name})")
    @SelectKey(statement = "SELECT 1", keyProperty = "order.id", before = false, resultType = Long.class)
    int insertSelectingKey(@Param("table") String table, @Param("order") Order order);

    @Insert("<script>INSERT INTO ${table} (id, name) VALUES <foreach collection='orders' item='o' separator=','>"
            + "(#{o.id}, #{o.name})</foreach></script>")
    int insertBatch(OrderBatch batch);

    @Insert("<script>INSERT INTO ${table} (id, name) VALUES <foreach collection='batch.orders' item='o' "
            + "separator=','>(#{o.id}, #{o.name})</foreach></script>")
    int insertNested(@Param("table") String table, @Param("batch") OrderBatch batch);

    @Update("UPDATE ${table} SET name = #{order.name} WHERE id = #{order.id}")
    int update(@Param("table") String table, @Param("order") Order order);

    @Select("SELECT id FROM ${table} WHERE name = #{name}")
    List<String> idsNamed(@Param("table") String table, @Param("name") String name);
}

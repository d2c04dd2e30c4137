package io.github.idworker.sample;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * The statements on the application's table {@code orders} ({@code schema.sql}). The primary key and both numbers
 * come with the order: the database generates none of them.
 */
@Mapper
public interface OrderMapper {

    @Insert("""
            INSERT INTO orders (id, order_no, invoice_no, customer, amount, created_at)
            VALUES (#{id}, #{orderNo}, #{invoiceNo}, #{customer}, #{amount}, #{createdAt})
            """)
    void insert(Order order);

    /** The order of that primary key, or {@code null}. */
    @Select("SELECT id, order_no, invoice_no, customer, amount, created_at FROM orders WHERE id = #{id}")
    Order findById(@Param("id") long id);
}

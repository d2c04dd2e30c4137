package io.github.idworker.spring.entity;

import java.util.List;

/** A parameter object holding the orders to insert, which the MyBatis interceptor does not reach into. */
public class OrderBatch {

    private final String table;
    private final List<Order> orders;

    public OrderBatch(String table, List<Order> orders) {
        this.table = table;
        this.orders = orders;
    }

    public String getTable() {
        return table;
    }

    public List<Order> getOrders() {
        return orders;
    }
}

package io.github.idworker.sample;

import io.github.idworker.spring.entity.GeneratedId;

import java.time.Instant;

/**
 * Something that happened to an order, stored in the table {@code order_events}. Its primary key is filled on
 * insert by the starter's MyBatis interceptor from the snowflake worker ({@link GeneratedId}): the code that
 * records an event never asks for an ID.
 */
public class OrderEvent {

    @GeneratedId
    private Long id;
    private long orderId;
    private String kind;
    private Instant happenedAt;

    /** For MyBatis, which reads rows into it. */
    public OrderEvent() {
    }

    /** A new event without an ID; {@link OrderEventMapper#insert(OrderEvent)} gives it one. */
    public OrderEvent(long orderId, String kind, Instant happenedAt) {
        this.orderId = orderId;
        this.kind = kind;
        this.happenedAt = happenedAt;
    }

    public Long getId() {
        return id;
    }

    public void setId(Long id) {
        this.id = id;
    }

    public long getOrderId() {
        return orderId;
    }

    public void setOrderId(long orderId) {
        this.orderId = orderId;
    }

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public Instant getHappenedAt() {
        return happenedAt;
    }

    public void setHappenedAt(Instant happenedAt) {
        this.happenedAt = happenedAt;
    }
}

package io.github.idworker.sample;

import io.github.idworker.spring.entity.GeneratedId;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * Something that happened to an order, stored in the table {@code order_events}. Its primary key is filled on
 * insert by the starter's MyBatis interceptor from the snowflake worker ({@link GeneratedId}): the code that
 * records an event never asks for an ID.
 */
public class OrderEvent {

    /** Null until the insert fills it. */
    @GeneratedId
    private @Nullable Long id;
    private long orderId;
    /** Null only in an instance MyBatis has created and not filled yet. */
    private @Nullable String kind;
    private @Nullable Instant happenedAt;

    /** For MyBatis, which reads rows into it. */
    public OrderEvent() {
    }

    /** A new event without an ID; {@link OrderEventMapper#insert(OrderEvent)} gives it one. */
    public OrderEvent(long orderId, String kind, Instant happenedAt) {
        this.orderId = orderId;
        this.kind = kind;
        this.happenedAt = happenedAt;
    }

    public @Nullable Long getId() {
        return id;
    }

    public void setId(@Nullable Long id) {
        this.id = id;
    }

    public long getOrderId() {
        return orderId;
    }

    public void setOrderId(long orderId) {
        this.orderId = orderId;
    }

    public @Nullable String getKind() {
        return kind;
    }

    public void setKind(@Nullable String kind) {
        this.kind = kind;
    }

    public @Nullable Instant getHappenedAt() {
        return happenedAt;
    }

    public void setHappenedAt(@Nullable Instant happenedAt) {
        this.happenedAt = happenedAt;
    }
}

package io.github.idworker.sample;

import io.github.idworker.spring.annotation.IdAsString;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A stored order, as {@code GET /orders/{id}} returns it. The primary key is written as a JSON string
 * ({@link IdAsString}): a snowflake id has more digits than a JavaScript number keeps.
 *
 * @param id primary key, from the snowflake worker
 * @param orderNo order number, from the serial rule {@code order}, such as {@code ORD20261126000001}
 * @param invoiceNo invoice number, from the segment tag {@code invoice}
 * @param customer who ordered
 * @param amount what the order costs, with at most two decimal places
 * @param createdAt when it was created
 */
public record Order(@IdAsString long id, String orderNo, long invoiceNo, String customer, BigDecimal amount,
                    Instant createdAt) {
}

package io.github.idworker.sample;

import io.github.idworker.IdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.serial.SerialNumbers;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Creates and reads orders. Every order gets three numbers, each unique across threads, instances and restarts:
 * its primary key from the snowflake worker, its order number from the serial rule {@value #ORDER_RULE} and its
 * invoice number from the segment tag {@value #INVOICE_TAG} (both configured in {@code application.yml}); its
 * {@code created} {@link OrderEvent} gets its ID on insert, without asking for one. A number
 * taken for an order whose insert then fails is skipped, never handed out again.
 */
public class OrderService {

    /** Serial rule of order numbers: {@code ORD} + the day in Shanghai + six digits, from 1 again every day. */
    static final String ORDER_RULE = "order";
    /** Segment tag of invoice numbers: dense and increasing per instance. */
    static final String INVOICE_TAG = "invoice";

    private final IdGenerator idWorker;
    private final SerialNumbers serials;
    private final SegmentIdGenerators segments;
    private final OrderMapper orders;
    private final OrderEventMapper events;

    /**
     * @param idWorker the snowflake worker: {@code RedisIdWorker} or {@code DBIdWorker}, by profile
     */
    public OrderService(IdGenerator idWorker, SerialNumbers serials, SegmentIdGenerators segments,
                        OrderMapper orders, OrderEventMapper events) {
        this.idWorker = idWorker;
        this.serials = serials;
        this.segments = segments;
        this.orders = orders;
        this.events = events;
    }

    /** Stores a new order and its {@code created} event, and returns the order with its numbers. */
    public Order create(NewOrder order) {
        Order created = new Order(idWorker.nextId(), serials.next(ORDER_RULE), segments.nextId(INVOICE_TAG),
                order.customer(), order.amount(), Instant.now().truncatedTo(ChronoUnit.MILLIS));
        orders.insert(created);
        // no ID asked for: OrderEvent's @GeneratedId field is filled by the starter's MyBatis interceptor
        events.insert(new OrderEvent(created.id(), "created", created.createdAt()));
        return created;
    }

    /** The events of an order, oldest first. */
    public List<OrderEvent> events(long orderId) {
        return events.findByOrderId(orderId);
    }

    /** The order of that primary key; {@link OrderNotFoundException} when there is none. */
    public Order find(long id) {
        Order order = orders.findById(id);
        if (order == null) {
            throw new OrderNotFoundException(id);
        }
        return order;
    }
}

package io.github.idworker.sample;

/** No order has the primary key asked for; answered with 404. */
public class OrderNotFoundException extends RuntimeException {

    public OrderNotFoundException(long id) {
        super("no order has id " + id);
    }
}

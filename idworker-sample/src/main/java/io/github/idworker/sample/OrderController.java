package io.github.idworker.sample;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;

/**
 * {@code POST /orders} creates an order and answers 201 with it and its {@code Location};
 * {@code GET /orders/{id}} reads one back. Errors are problem documents ({@link OrderProblems}).
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    public ResponseEntity<Order> create(@RequestBody NewOrder order) {
        Order created = orders.create(order.validated());
        return ResponseEntity.created(URI.create("/orders/" + created.id())).body(created);
    }

    @GetMapping("/{id}")
    public Order find(@PathVariable long id) {
        return orders.find(id);
    }
}

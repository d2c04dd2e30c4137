package io.github.idworker.sample;

import java.math.BigDecimal;

/**
 * The body of {@code POST /orders}, such as {@code {"customer":"ada","amount":12.50}}. {@link #validated()} gives
 * an order that fits the table, or fails naming the first field that does not.
 *
 * @param customer who orders: 1 to {@value #MAX_CUSTOMER_LENGTH} characters, not only blanks
 * @param amount what it costs: above 0, below 10<sup>10</sup>, at most two decimal places
 */
public record NewOrder(String customer, BigDecimal amount) {

    static final int MAX_CUSTOMER_LENGTH = 100;
    private static final BigDecimal MAX_AMOUNT = new BigDecimal("9999999999.99");

    /**
     * This order as it is stored: the customer without surrounding blanks, the amount with two decimal places.
     *
     * @throws InvalidOrderException naming the field that is missing or out of range
     */
    public NewOrder validated() {
        if (customer == null || customer.isBlank()) {
            throw new InvalidOrderException("customer", "is required: who orders, 1 to " + MAX_CUSTOMER_LENGTH
                    + " characters");
        }
        String name = customer.strip();
        if (name.length() > MAX_CUSTOMER_LENGTH) {
            throw new InvalidOrderException("customer", "must be at most " + MAX_CUSTOMER_LENGTH
                    + " characters, was " + name.length());
        }
        if (amount == null) {
            throw new InvalidOrderException("amount", "is required: a number above 0 with at most two decimal "
                    + "places, such as 12.50");
        }
        if (amount.signum() <= 0 || amount.compareTo(MAX_AMOUNT) > 0) {
            throw new InvalidOrderException("amount", "must be above 0 and at most " + MAX_AMOUNT);
        }
        if (amount.stripTrailingZeros().scale() > 2) {
            throw new InvalidOrderException("amount", "must have at most two decimal places");
        }
        return new NewOrder(name, amount.setScale(2));
    }
}

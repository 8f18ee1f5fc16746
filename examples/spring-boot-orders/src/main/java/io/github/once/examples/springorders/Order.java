package io.github.once.examples.springorders;

/** An order message: {@code {"orderId": "S-1001", "sku": "book", "quantity": 2, "amountCents": 2500}}. */
public record Order(String orderId, String sku, int quantity, long amountCents) {
}

package io.github.once.cli.demo;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The demo's message body: an order whose stock is deducted once, as in the seed. */
final class Order {
    private static final Pattern ORDER_ID = Pattern.compile("\"order_id\"\\s*:\\s*\"([^\"]+)\"");

    private Order() {
    }

    static byte[] body(String orderId) {
        return ("{\"order_id\":\"" + orderId + "\",\"sku\":\"sku-42\",\"quantity\":1}").getBytes(StandardCharsets.UTF_8);
    }

    /** The business identifier inside the body; the effect ledger counts by it, whatever the message ID. */
    static Optional<String> orderId(byte[] body) {
        Matcher m = ORDER_ID.matcher(new String(body, StandardCharsets.UTF_8));
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}

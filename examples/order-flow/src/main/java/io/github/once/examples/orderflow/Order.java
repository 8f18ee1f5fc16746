package io.github.once.examples.orderflow;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An order message: {@code order=o-1 items=sku-1:2,sku-2:1 amount=4200} (quantities per SKU, the amount in
 * cents). A plain text format keeps the example free of a JSON library.
 */
public record Order(String id, Map<String, Integer> items, long amountCents) {

    public static Order parse(byte[] body) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String part : new String(body, StandardCharsets.UTF_8).trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                fields.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        Map<String, Integer> items = new LinkedHashMap<>();
        for (String item : fields.getOrDefault("items", "").split(",")) {
            if (!item.isEmpty()) {
                String[] skuQty = item.split(":");
                items.put(skuQty[0], Integer.parseInt(skuQty[1]));
            }
        }
        if (!fields.containsKey("order") || items.isEmpty() || !fields.containsKey("amount")) {
            throw new IllegalArgumentException("not an order: " + new String(body, StandardCharsets.UTF_8));
        }
        return new Order(fields.get("order"), items, Long.parseLong(fields.get("amount")));
    }

    public byte[] toBytes() {
        StringBuilder items = new StringBuilder();
        this.items.forEach((sku, qty) -> items.append(items.length() == 0 ? "" : ",").append(sku).append(':').append(qty));
        return ("order=" + id + " items=" + items + " amount=" + amountCents).getBytes(StandardCharsets.UTF_8);
    }
}

package io.github.once.rabbitmq;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Business effects, counted apart from the idempotency store: exactly-once means one entry of 1 per message. */
final class Ledger {
    private final ConcurrentHashMap<String, AtomicInteger> effects = new ConcurrentHashMap<>();

    void record(String id) {
        effects.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    int count(String id) {
        AtomicInteger n = effects.get(id);
        return n == null ? 0 : n.get();
    }

    int distinct() {
        return effects.size();
    }

    long total() {
        return effects.values().stream().mapToLong(AtomicInteger::get).sum();
    }

    Map<String, Integer> doubled() {
        Map<String, Integer> out = new ConcurrentHashMap<>();
        effects.forEach((k, v) -> {
            if (v.get() != 1) {
                out.put(k, v.get());
            }
        });
        return out;
    }
}

package io.github.once.cli.demo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Where the business effect lands (a stock deduction per order), counted apart from any idempotency store. */
interface EffectSink {

    /** Applies one effect for {@code orderId}; {@code transaction} is the JDBC connection of a transactional run. */
    void apply(String orderId, Object transaction) throws Exception;

    /** How many times the effect happened for {@code orderId} (committed effects only). */
    int count(String orderId);

    /** The in-memory ledger used for every non-transactional row. */
    static EffectSink ledger() {
        return new Ledger();
    }

    final class Ledger implements EffectSink {
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        @Override
        public void apply(String orderId, Object transaction) {
            counts.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public int count(String orderId) {
            AtomicInteger c = counts.get(orderId);
            return c == null ? 0 : c.get();
        }
    }
}

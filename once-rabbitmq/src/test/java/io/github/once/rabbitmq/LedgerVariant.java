package io.github.once.rabbitmq;

/** A store variant whose business effect is a count in an in-process {@link Ledger}. */
abstract class LedgerVariant implements StoreVariant {
    final Ledger ledger = new Ledger();

    @Override
    public void effect(String id, DeliveryContext context) {
        ledger.record(id);
    }

    @Override
    public int effects(String id) {
        return ledger.count(id);
    }

    @Override
    public long totalEffects() {
        return ledger.total();
    }

    @Override
    public long distinctEffects() {
        return ledger.distinct();
    }
}

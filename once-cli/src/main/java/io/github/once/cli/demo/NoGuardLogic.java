package io.github.once.cli.demo;

/**
 * The seed's NonIdempotentConsumer with RetryWithoutDeduplication's error path: process, then ack; on failure
 * nack with requeue. No message-ID check, no state check.
 */
final class NoGuardLogic implements TrapLogic {
    @Override
    public void handle(RawDelivery d) throws Exception {
        d.cell().secondDecided(d.process());
        try {
            d.cell().work(d.process(), d.orderId(), null);
            d.ack();
        } catch (Exception e) {
            d.cell().note(CellEvent.NACK_REQUEUE);
            d.nack(true);
        }
    }
}

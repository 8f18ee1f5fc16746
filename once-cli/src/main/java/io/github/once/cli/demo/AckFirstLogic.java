package io.github.once.cli.demo;

/** The seed's WrongAckTimingConsumer: ack first, then process. A failure after the ack loses the message. */
final class AckFirstLogic implements TrapLogic {
    @Override
    public void handle(RawDelivery d) throws Exception {
        d.ack();
        d.cell().note(CellEvent.ACKED_BEFORE_WORK);
        d.cell().secondDecided(d.process());
        d.cell().work(d.process(), d.orderId(), null);
    }
}

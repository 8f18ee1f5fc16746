package io.github.once.examples.orderflow;

import com.rabbitmq.client.Delivery;

import io.github.once.ExecutionContext;
import io.github.once.ResultCodec;
import io.github.once.jdbc.StateMachine;
import io.github.once.rabbitmq.DeliveryContext;
import io.github.once.rabbitmq.MessageHandler;

import java.sql.Connection;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The order handler. It runs in one database transaction (the tiered store over once-jdbc's transactional scope):
 * the order's move to {@code processing}, a step per stock deduction, the payment step, the notification step and
 * the move to {@code completed} commit together with the message's record, or not at all. The payment is the one
 * effect outside the database: its step sends {@code ctx.operationKey("payment")} as the payment service's
 * idempotency key, so an attempt that is run again (after a crash, or a charge that timed out) charges once.
 */
public final class OrderFlow implements MessageHandler {

    private final Shop shop;
    private final PaymentClient payments;
    private final Consumer<Order> afterPayment;

    /** @param afterPayment runs right after the payment step (the crash test kills the process there) */
    public OrderFlow(Shop shop, PaymentClient payments, Consumer<Order> afterPayment) {
        this.shop = shop;
        this.payments = payments;
        this.afterPayment = afterPayment;
    }

    @Override
    public void handle(Delivery delivery, DeliveryContext context) throws Exception {
        ExecutionContext ctx = context.execution();
        Order order = Order.parse(delivery.getBody());
        Connection c = ctx.resource(Connection.class);

        StateMachine.Transition started = shop.orders().move(c, order.id(), "processing");
        if (started instanceof StateMachine.Transition.Missing || started instanceof StateMachine.Transition.Conflict) {
            throw new IllegalStateException("order " + order.id() + " cannot be processed: " + started);
        }
        for (Map.Entry<String, Integer> item : order.items().entrySet()) {
            ctx.step("deduct-stock:" + item.getKey(), ResultCodec.none(), () -> {
                shop.deduct(c, item.getKey(), item.getValue());
                return null;
            });
        }
        String charge = ctx.step("payment",
                () -> payments.charge(ctx.operationKey("payment"), order.id(), order.amountCents()));
        afterPayment.accept(order);
        ctx.step("notify", () -> {
            shop.notify(c, order.id(), "order " + order.id() + " paid (" + charge + ")");
            return "sent";
        });
        StateMachine.Transition completed = shop.orders().move(c, order.id(), "completed");
        if (!(completed instanceof StateMachine.Transition.Applied)) {
            throw new IllegalStateException("order " + order.id() + " could not be completed: " + completed);
        }
    }
}

package io.github.once.rabbitmq.container;

import com.rabbitmq.client.AMQP;

import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.DeadLetterReason;

import java.time.Duration;

/**
 * What becomes of one delivery, as Once decides it ({@link ContainerPolicy#decide}): ack it, send a reply and ack,
 * move a copy to a delay or the dead-letter queue and ack once the copy is confirmed, or give it back. A listener
 * container carries it out; {@code OnceConsumer} does so itself.
 */
public sealed interface Disposition {

    /** What the listener hears once the disposition is carried out. */
    ConsumerAction action();

    /** Ack: the work is done (or was done before) and nothing needs sending. */
    record Ack(ConsumerAction action) implements Disposition {
    }

    /** Send the reply to {@code replyTo}, then ack once its confirm is in (or overdue: a reply is best effort). */
    record Reply(ConsumerAction action, String replyTo, AMQP.BasicProperties properties, byte[] body)
            implements Disposition {
    }

    /** Publish a copy of the delivery to {@code queue}; ack once the copy is confirmed, else give it back. */
    sealed interface Move extends Disposition {
        String queue();

        AMQP.BasicProperties properties();

        /** The same move with the copy's properties replaced (such as headers carrying a trace context). */
        Move withProperties(AMQP.BasicProperties properties);
    }

    /**
     * A delayed retry: the copy comes back as attempt {@code nextAttempt} after {@code delay}; {@code error} is the
     * handler's failure when it failed (null when busy or the lease was lost).
     */
    record Retry(ConsumerAction action, int nextAttempt, Duration delay, Throwable error, String queue,
                        AMQP.BasicProperties properties) implements Move {
        @Override
        public Retry withProperties(AMQP.BasicProperties properties) {
            return new Retry(action, nextAttempt, delay, error, queue, properties);
        }
    }

    /**
     * To the dead-letter queue, with the reason, the attempts, the last error and (for a missing or invalid key)
     * the detail in its headers.
     */
    record DeadLetter(DeadLetterReason reason, String detail, int attempts, Throwable error, String queue,
                      AMQP.BasicProperties properties) implements Move {
        @Override
        public ConsumerAction action() {
            return ConsumerAction.DEAD_LETTERED;
        }

        @Override
        public DeadLetter withProperties(AMQP.BasicProperties properties) {
            return new DeadLetter(reason, detail, attempts, error, queue, properties);
        }
    }

    /** Give the delivery back unprocessed ({@code nack} with requeue) and pause consumption. */
    record Requeue(Throwable cause) implements Disposition {
        @Override
        public ConsumerAction action() {
            return ConsumerAction.REQUEUED;
        }
    }
}

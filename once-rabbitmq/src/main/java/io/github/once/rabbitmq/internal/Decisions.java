package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyConfig;
import io.github.once.OnceException;
import io.github.once.Outcome;
import io.github.once.StoreRejectedException;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.github.once.rabbitmq.container.Disposition;
import io.github.once.rabbitmq.internal.DeliveryKey;
import io.github.once.rabbitmq.internal.Moves;
import io.github.once.rabbitmq.internal.Settlement;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * The consumer's policy, with no broker in it: what to do with a delivery given what the executor answered, its
 * attempt and the retry policy. It only decides; {@link Settlement} publishes, confirms and acks. Listener
 * containers Once does not run itself reach it through {@link io.github.once.rabbitmq.container.ContainerPolicy}.
 */
public final class Decisions {
    private final String queue;
    private final RetryPolicy retry;
    private final int maxErrorLength;
    private final Clock clock;
    private final int crashLoopAfter;

    public Decisions(String queue, RetryPolicy retry, int maxErrorLength, Clock clock) {
        this(queue, retry, maxErrorLength, clock, IdempotencyConfig.defaults().crashLoopAfter());
    }

    /** {@code crashLoopAfter}: the executor's {@link IdempotencyConfig#crashLoopAfter()}. */
    public Decisions(String queue, RetryPolicy retry, int maxErrorLength, Clock clock, int crashLoopAfter) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.retry = Objects.requireNonNull(retry, "retry");
        this.maxErrorLength = maxErrorLength;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.crashLoopAfter = crashLoopAfter;
    }

    /** The executor answered for a keyed delivery on its {@code attempt}-th attempt. */
    public Disposition decide(Delivery delivery, int attempt, Outcome<byte[]> outcome) {
        if (outcome instanceof Outcome.Processed<byte[]> processed) {
            return replyOrAck(delivery, ConsumerAction.PROCESSED, processed.result(), false);
        } else if (outcome instanceof Outcome.Duplicate<byte[]> duplicate) {
            return replyOrAck(delivery, ConsumerAction.DUPLICATE, duplicate.result(), true);
        } else if (outcome instanceof Outcome.Busy<byte[]> busy) {
            // Not the handler's failure: the other owner finishes (we then see a duplicate) or loses its lease.
            return retry(delivery, ConsumerAction.RETRIED_BUSY, attempt,
                    retry.delayWhileBusy(remaining(busy.leaseUntil())), null);
        } else if (outcome instanceof Outcome.LeaseLost<byte[]>) {
            // Another owner took the key over; retrying lets the next claim see its result (or take over).
            return retry(delivery, ConsumerAction.RETRIED_LEASE_LOST, attempt, retry.delayAfterFailure(1), null);
        } else if (outcome instanceof Outcome.Conflict<byte[]> conflict) {
            return deadLetter(delivery, DeadLetterReason.CONFLICT, "the key was recorded with payload fingerprint "
                    + conflict.record().fingerprint() + "; this message's is " + conflict.fingerprint(), attempt, null);
        } else if (outcome instanceof Outcome.CrashLoop<byte[]> loop) {
            return deadLetter(delivery, DeadLetterReason.CRASH_LOOP, null, attempt, new OnceException("the key's"
                    + " lease was taken over from owners that died " + loop.takeovers() + " times in a row"));
        } else if (outcome instanceof Outcome.Failed<byte[]> failed
                && failed.cause() instanceof StoreRejectedException rejected) {
            // The same record fails the same way on every attempt: no retry.
            return deadLetter(delivery, DeadLetterReason.STORE_REJECTED, null, attempt, rejected);
        } else if (outcome instanceof Outcome.Failed<byte[]> failed) {
            // The processing log reports the failure (at WARN, with the key, the attempt and the error).
            if (attempt >= retry.maxAttempts()) {
                return deadLetter(delivery, DeadLetterReason.MAX_ATTEMPTS, null, attempt, failed.cause());
            }
            return retry(delivery, ConsumerAction.RETRIED_FAILED, attempt + 1, retry.delayAfterFailure(attempt),
                    failed.cause());
        }
        throw new IllegalStateException("unknown outcome " + outcome + " for delivery " + delivery.getEnvelope());
    }

    /** The delivery has no usable key: it is never processed unguarded. */
    public Disposition keyless(Delivery delivery, int attempt, DeliveryKey.Keyless keyless) {
        return deadLetter(delivery, keyless.reason(), keyless.detail(), attempt, null);
    }

    /**
     * A crash loop the store cannot see: a quorum queue's {@code x-delivery-count} (returns of this copy to the
     * queue: lost consumers, and before RabbitMQ 4.3 also the requeues of a pause) at or over the executor's
     * takeover threshold plus the retry budget, the margin left for pauses. Null when the delivery may run.
     */
    public Disposition redeliveredTooOften(Delivery delivery, int attempt) {
        long returns = deliveryCount(delivery);
        long limit = (long) crashLoopAfter + retry.maxAttempts();
        if (returns < limit) {
            return null;
        }
        // The processing log reports the dead letter with this cause.
        return deadLetter(delivery, DeadLetterReason.CRASH_LOOP, null, attempt, new OnceException("x-delivery-count "
                + returns + " reached " + limit + " (crashLoopAfter " + crashLoopAfter + " + maxAttempts "
                + retry.maxAttempts() + ")"));
    }

    private static long deliveryCount(Delivery delivery) {
        Map<String, Object> headers = delivery.getProperties().getHeaders();
        Object value = headers == null ? null : headers.get("x-delivery-count");
        return value instanceof Number n ? n.longValue() : 0;
    }

    /** The executor failed outside the handler (the store is unreachable): nothing ran, nothing is acked. */
    public Disposition storeFailed(Throwable cause) {
        return new Disposition.Requeue(cause);
    }

    private Disposition replyOrAck(Delivery delivery, ConsumerAction action, byte[] result, boolean duplicate) {
        AMQP.BasicProperties props = delivery.getProperties();
        String replyTo = props.getReplyTo();
        // A re-sent reply without a correlation id could not be told apart from the first one.
        if (result == null || replyTo == null || replyTo.isEmpty()
                || (duplicate && props.getCorrelationId() == null)) {
            return new Disposition.Ack(action);
        }
        AMQP.BasicProperties replyProps = new AMQP.BasicProperties.Builder()
                .correlationId(props.getCorrelationId())
                .build();
        return new Disposition.Reply(action, replyTo, replyProps, result);
    }

    private Disposition.Retry retry(Delivery delivery, ConsumerAction action, int nextAttempt, Duration delay, Throwable error) {
        String target = retry.strategy() == RetryPolicy.Strategy.DELAY_QUEUES ? Topology.delayQueue(queue, delay) : queue;
        return new Disposition.Retry(action, nextAttempt, delay, error, target, Moves.retry(delivery, nextAttempt));
    }

    private Disposition.DeadLetter deadLetter(Delivery delivery, DeadLetterReason reason, String detail, int attempts,
                                  Throwable error) {
        return new Disposition.DeadLetter(reason, detail, attempts, error, Topology.deadLetterQueue(queue),
                Moves.deadLetter(delivery, queue, reason, detail, attempts, error, maxErrorLength));
    }

    private Duration remaining(Instant until) {
        Duration d = Duration.between(clock.instant(), until);
        return d.isNegative() ? Duration.ZERO : d;
    }
}

package io.github.once.spring.boot.internal;

import com.rabbitmq.client.Connection;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.rabbitmq.DeadLetterQueue;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The actuator endpoint {@code once}: what the {@code once} CLI does, for the application's own store and queues.
 * <ul>
 *   <li>read {@code once}: the store, and for each {@code @Once} listener's queue its namespace and its records
 *   per standing;</li>
 *   <li>read {@code once/{namespace}}: the records of one namespace per standing;</li>
 *   <li>read {@code once/{namespace}/{id}}: one key's record (404 when the store holds none);</li>
 *   <li>delete {@code once/{namespace}}: purges the namespace's expired records, in batches;</li>
 *   <li>write {@code once/{queue}} with {@code {"max": n}}: moves up to {@code n} dead letters of the queue back
 *   to it, oldest first, each copy confirmed before its dead letter is acked (once-rabbitmq's
 *   {@link DeadLetterQueue}).</li>
 * </ul>
 * Exposed and secured as Boot's other endpoints: not over HTTP until
 * {@code management.endpoints.web.exposure.include} names it.
 */
@Endpoint(id = "once")
public final class OnceEndpoint {
    /** Records per purge statement, as the CLI's purge. */
    private static final int BATCH = 1_000;

    private final IdempotencyStore store;
    private final StoreInspector inspector;
    private final Supplier<Map<String, String>> namespaces;
    private final com.rabbitmq.client.ConnectionFactory rabbit;

    /**
     * @param namespaces the key namespace of each {@code @Once} listener's queue, by queue
     * @param rabbit     where dead letters are read and moved, on a connection of the operation's own; null for none
     */
    public OnceEndpoint(IdempotencyStore store, Supplier<Map<String, String>> namespaces,
                        com.rabbitmq.client.ConnectionFactory rabbit) {
        this.store = store;
        this.inspector = StoreInspectors.of(store);
        this.namespaces = namespaces;
        this.rabbit = rabbit;
    }

    @ReadOperation
    public Map<String, Object> listeners() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("store", store.toString());
        Map<String, Object> queues = new LinkedHashMap<>();
        namespaces.get().forEach((queue, namespace) -> queues.put(queue, counts(namespace)));
        out.put("queues", queues);
        return out;
    }

    @ReadOperation
    public Map<String, Object> namespace(@Selector String namespace) {
        return counts(namespace);
    }

    @ReadOperation
    public Map<String, Object> record(@Selector String namespace, @Selector String id) {
        return inspector().inspect(IdempotencyKey.of(namespace, id)).map(OnceEndpoint::record).orElse(null);
    }

    @DeleteOperation
    public Map<String, Object> purgeExpired(@Selector String namespace) {
        StoreInspector s = inspector();
        long purged = 0;
        for (int deleted = BATCH; deleted == BATCH; purged += deleted) {
            deleted = s.purgeExpired(namespace, BATCH);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("namespace", namespace);
        out.put("purged", purged);
        return out;
    }

    @WriteOperation
    public Map<String, Object> moveDeadLetters(@Selector String queue, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, but was " + max);
        }
        if (rabbit == null) {
            throw new IllegalStateException("Once knows no RabbitMQ connection factory to move dead letters with");
        }
        try (Connection connection = rabbit.newConnection("once-endpoint");
             DeadLetterQueue dlq = DeadLetterQueue.open(connection, queue)) {
            List<String> moved = new ArrayList<>();
            for (DeadLetterQueue.DeadLetter letter : dlq.take(max)) {
                dlq.moveBack(letter);
                moved.add(letter.messageId());
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("queue", queue);
            out.put("deadLetterQueue", dlq.name());
            out.put("moved", moved.size());
            out.put("messageIds", moved);
            out.put("remaining", dlq.remaining());
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("moving the dead letters of " + queue + " failed: " + e.getMessage(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("RabbitMQ did not answer: " + e.getMessage(), e);
        }
    }

    private StoreInspector inspector() {
        if (inspector == null) {
            throw new IllegalStateException("the store " + store + " offers no inspector (Once's JDBC, Redis and "
                    + "in-memory stores do)");
        }
        return inspector;
    }

    private Map<String, Object> counts(String namespace) {
        StoreInspector s = inspector();
        StoreInspector.Counts c = s.count(namespace);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("namespace", namespace);
        out.put("now", c.now().toString());
        out.put("completed", c.completed());
        out.put("inProgress", c.inProgress());
        out.put("released", s.tellsReleasedFromLapsed() ? c.released() : null);
        out.put("lapsed", c.lapsed());
        out.put("expiredBacklog", c.expired());
        return out;
    }

    private static Map<String, Object> record(StoreInspector.Inspected found) {
        IdempotencyRecord r = found.record();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("namespace", r.key().namespace());
        out.put("id", r.key().id());
        out.put("storageKey", found.storageKey());
        out.put("state", r.state().name());
        out.put("standing", found.standing().name());
        out.put("token", r.token());
        out.put("claimedAt", found.claimedAt().toString());
        out.put("leaseUntil", r.leaseUntil().toString());
        out.put("expiresAt", r.expiresAt().toString());
        out.put("fingerprint", r.fingerprint());
        out.put("resultBase64", r.result() == null ? null : Base64.getEncoder().encodeToString(r.result()));
        return out;
    }
}

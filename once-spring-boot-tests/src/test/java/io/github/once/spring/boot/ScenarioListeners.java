package io.github.once.spring.boot;

import com.rabbitmq.client.Channel;

import io.github.once.spring.rabbit.Once;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;

/**
 * Plain {@code @RabbitListener} methods marked {@link Once}: each counts its effects per message id apart from
 * the store. A body of {@code fail} makes the method throw; a message whose id has a {@link #hold gate} waits in
 * the handler, the first time, until the test releases it.
 */
public class ScenarioListeners {
    final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    final List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
    final List<List<String>> batchBodies = new CopyOnWriteArrayList<>();
    final Map<String, Channel> channels = new ConcurrentHashMap<>();
    final Map<String, Gate> gates = new ConcurrentHashMap<>();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger replies = new AtomicInteger();

    int effects(String id) {
        AtomicInteger n = effects.get(id);
        return n == null ? 0 : n.get();
    }

    /** The handler of {@code id} will wait, its first time, until the gate is released. */
    Gate hold(String id) {
        Gate gate = new Gate();
        gates.put(id, gate);
        return gate;
    }

    void effect(String id) {
        effects.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Waits at the message's gate if it has one, fails on a body of {@code fail}, else has its effect. */
    private void handle(Message message) throws InterruptedException {
        String id = message.getMessageProperties().getMessageId();
        Gate gate = id == null ? null : gates.get(id);
        if (gate != null) {
            gate.pass();
        }
        if (body(message).equals("fail")) {
            throw new IllegalStateException("boom " + id);
        }
        effect(id);
    }

    private static String body(Message m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }

    @RabbitListener(queuesToDeclare = @Queue("${scenario.single}"))
    @Once
    public void single(Message message, Channel channel) throws InterruptedException {
        calls.incrementAndGet();
        Object attempt = message.getMessageProperties().getHeaders().get("x-once-attempt");
        attemptsSeen.add(attempt == null ? 1 : Integer.parseInt(attempt.toString()));
        String id = message.getMessageProperties().getMessageId();
        if (id != null) {
            channels.put(id, channel);
        }
        handle(message);
    }

    @RabbitListener(queuesToDeclare = @Queue("${scenario.header}"))
    @Once(key = "headers['x-order-id']", namespace = "orders")
    public void byHeader(Message message) {
        effect("header:" + message.getMessageProperties().getHeaders().get("x-order-id"));
    }

    @RabbitListener(queuesToDeclare = @Queue("${scenario.reply}"))
    @Once
    public String reply(String body) {
        effect("reply:" + body);
        return "answer:" + body + ":" + replies.incrementAndGet();
    }

    /** The batch listener of a simple container with consumer batching: one claim for the batch. */
    public static class ConsumerBatch {
        private final ScenarioListeners listeners;

        ConsumerBatch(ScenarioListeners listeners) {
            this.listeners = listeners;
        }

        @RabbitListener(queuesToDeclare = @Queue("${scenario.batch}"), containerFactory = "batchFactory")
        @Once
        public void batch(List<Message> messages) {
            for (Message m : messages) {
                if (body(m).equals("fail")) {
                    throw new IllegalStateException("boom " + m.getMessageProperties().getMessageId());
                }
            }
            for (Message m : messages) {
                listeners.effect("batch:" + m.getMessageProperties().getMessageId());
            }
        }
    }

    /**
     * The batch listener of a direct container, which gets the batches a producer made, each one AMQP message.
     * Spring AMQP hands such a batch to a listener as payloads (not as AMQP messages).
     */
    public static class ProducerBatch {
        private final ScenarioListeners listeners;

        ProducerBatch(ScenarioListeners listeners) {
            this.listeners = listeners;
        }

        @RabbitListener(queuesToDeclare = @Queue("${scenario.batch}"), containerFactory = "batchFactory")
        @Once
        public void batch(List<String> bodies) {
            listeners.batchBodies.add(List.copyOf(bodies));
        }
    }

    /** Two consumers, so one can go on while the other's handler is held. */
    @RabbitListener(queuesToDeclare = @Queue("${scenario.recover}"), concurrency = "2")
    @Once
    public void recover(Message message) throws InterruptedException {
        handle(message);
    }

    @RabbitListener(id = "close", queuesToDeclare = @Queue("${scenario.close}"))
    @Once
    public void close(Message message) throws InterruptedException {
        handle(message);
    }

    /** Four consumers: the soak is thousands of deliveries, each two store round trips. */
    @RabbitListener(queuesToDeclare = @Queue("${scenario.soak}"), concurrency = "4")
    @Once
    public void soak(Message message) throws InterruptedException {
        handle(message);
    }

    /** One consumer, so a message sent twice in a row is a duplicate the second time, never busy. */
    @RabbitListener(queuesToDeclare = @Queue("${scenario.metered}"))
    @Once
    public void metered(Message message) throws InterruptedException {
        handle(message);
    }
}

package io.github.once.spring.boot;

import io.github.once.spring.rabbit.Once;

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
 * the store. A body of {@code fail} makes the method throw.
 */
public class ScenarioListeners {
    final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    final List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
    final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger replies = new AtomicInteger();

    int effects(String id) {
        AtomicInteger n = effects.get(id);
        return n == null ? 0 : n.get();
    }

    private void effect(String id) {
        effects.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    @RabbitListener(queuesToDeclare = @Queue("${scenario.single}"))
    @Once
    public void single(Message message) {
        calls.incrementAndGet();
        Object attempt = message.getMessageProperties().getHeaders().get("x-once-attempt");
        attemptsSeen.add(attempt == null ? 1 : Integer.parseInt(attempt.toString()));
        String body = new String(message.getBody());
        if (body.equals("fail")) {
            throw new IllegalStateException("boom " + message.getMessageProperties().getMessageId());
        }
        effect(message.getMessageProperties().getMessageId());
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

    @RabbitListener(queuesToDeclare = @Queue("${scenario.batch}"), containerFactory = "batchFactory")
    @Once
    public void batch(List<Message> messages) {
        batchSizes.add(messages.size());
        for (Message m : messages) {
            if (new String(m.getBody()).equals("fail")) {
                throw new IllegalStateException("boom " + m.getMessageProperties().getMessageId());
            }
        }
        for (Message m : messages) {
            effect("batch:" + m.getMessageProperties().getMessageId());
        }
    }
}

package io.github.once.spring.boot;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.QueueInformation;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;

/** Sending, counting and draining on the real RabbitMQ, for the scenario tests. */
final class Scenarios {
    /** The queues {@link ScenarioListeners} listen to, each named by property {@code scenario.<name>}. */
    static final List<String> QUEUES = List.of("single", "header", "reply", "batch", "recover", "close", "soak",
            "metered");

    private Scenarios() {
    }

    /** A port on 127.0.0.1 where nothing listens (free when asked): a link that is down. */
    static int portWithNothingListening() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fresh names for the queues of one application context, as the {@code scenario.*} properties. */
    static void register(DynamicPropertyRegistry r, String what) {
        for (String q : QUEUES) {
            String name = queueName(what + "-" + q);
            r.add("scenario." + q, () -> name);
        }
        String prefix = "once-spring-test:" + UUID.randomUUID() + ":";
        r.add("once.redis.key-prefix", () -> prefix);
    }

    /** The context's queue named by {@code scenario.<name>}. */
    static String queue(Environment env, String name) {
        return env.getRequiredProperty("scenario." + name);
    }

    /** Deletes every queue of the context (after its listeners stopped), with their delay and dead-letter queues. */
    static void deleteAll(AmqpAdmin admin, Environment env) {
        deleteAll(admin, QUEUES.stream().map(q -> queue(env, q)).toArray(String[]::new));
    }

    static OutboundMessage outbound(String queue, String id, String body) {
        return OutboundMessage.of("", queue, body.getBytes(StandardCharsets.UTF_8)).withMessageId(id);
    }

    /**
     * Publishes with confirms on a connection of its own, so that closing the application's connections in a test
     * cannot lose a message on its way in.
     */
    static void publishConfirmed(List<OutboundMessage> messages) {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        try (Connection connection = factory.newConnection("once-spring-test-publisher");
             OncePublisher publisher = OncePublisher.builder(connection).build()) {
            publisher.publishAll(messages);
        } catch (java.io.IOException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    static String queueName(String what) {
        return "once-spring-" + what + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Message message(String id, String body) {
        MessageBuilder b = (MessageBuilder) MessageBuilder.withBody(body.getBytes(StandardCharsets.UTF_8));
        if (id != null) {
            b.setMessageId(id);
        }
        return b.build();
    }

    static int count(AmqpAdmin admin, String queue) {
        QueueInformation info = admin.getQueueInfo(queue);
        return info == null ? 0 : (int) info.getMessageCount();
    }

    static List<Message> drain(RabbitTemplate template, String queue) {
        List<Message> all = new ArrayList<>();
        for (Message m; (m = template.receive(queue)) != null; ) {
            all.add(m);
        }
        return all;
    }

    static String header(Message m, String name) {
        Object v = m.getMessageProperties().getHeaders().get(name);
        return v == null ? null : v.toString();
    }

    static void deleteAll(AmqpAdmin admin, String... queues) {
        for (String q : queues) {
            admin.deleteQueue(q);
            admin.deleteQueue(q + ".once.dlq");
            for (String ms : List.of("30", "60", "120", "200", "400")) {
                admin.deleteQueue(q + ".once.delay." + ms);
            }
        }
    }
}

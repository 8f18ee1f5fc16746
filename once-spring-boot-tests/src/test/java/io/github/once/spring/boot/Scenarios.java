package io.github.once.spring.boot;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.QueueInformation;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/** Sending, counting and draining on the real RabbitMQ, for the scenario tests. */
final class Scenarios {
    private Scenarios() {
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

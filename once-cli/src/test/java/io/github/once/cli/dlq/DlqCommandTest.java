package io.github.once.cli.dlq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.MiniJson;
import io.github.once.cli.Services;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.rabbitmq.Topology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** once dlq list and move against the local RabbitMQ, each test on fresh queues. */
class DlqCommandTest {

    private final String queue = "once-cli-dlq-" + UUID.randomUUID().toString().substring(0, 8);
    private final String dlq = Topology.deadLetterQueue(queue);
    private Connection connection;
    private Channel channel;

    @BeforeEach
    void declareQueues() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(Services.AMQP);
        connection = factory.newConnection("dlq-test");
        channel = connection.createChannel();
        channel.queueDeclare(queue, true, false, false, null);
        channel.queueDeclare(dlq, true, false, false, null);
        channel.confirmSelect();
        deadLetter("m1", DeadLetterReason.MAX_ATTEMPTS, "java.lang.IllegalStateException: stock service down", null);
        deadLetter("m2", DeadLetterReason.CONFLICT, null, "another payload under this key");
        deadLetter("m3", DeadLetterReason.MAX_ATTEMPTS, "java.lang.RuntimeException: boom", null);
        channel.waitForConfirmsOrDie(5_000);
    }

    @AfterEach
    void deleteQueues() throws Exception {
        try {
            channel.queueDelete(queue);
            channel.queueDelete(dlq);
        } finally {
            connection.close();
        }
    }

    /** A dead letter as the consumer writes one: the original message and Once's headers. */
    private void deadLetter(String id, DeadLetterReason reason, String error, String detail) throws Exception {
        Map<String, Object> headers = new HashMap<>();
        headers.put(OnceHeaders.REASON, reason.code());
        headers.put(OnceHeaders.ATTEMPTS, 5);
        headers.put(OnceHeaders.ATTEMPT, 5);
        headers.put(OnceHeaders.QUEUE, queue);
        headers.put(OnceHeaders.ORIGINAL_EXCHANGE, "");
        headers.put(OnceHeaders.ORIGINAL_ROUTING_KEY, queue);
        headers.put("x-app", "kept");
        if (error != null) {
            headers.put(OnceHeaders.ERROR, error);
        }
        if (detail != null) {
            headers.put(OnceHeaders.DETAIL, detail);
        }
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(id).headers(headers)
                .deliveryMode(2).build();
        channel.basicPublish("", dlq, props, ("{\"order\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    /** Takes every message of {@code name} (acking it), in queue order. */
    private List<GetResponse> drain(String name) throws Exception {
        List<GetResponse> all = new ArrayList<>();
        for (GetResponse r = channel.basicGet(name, true); r != null; r = channel.basicGet(name, true)) {
            all.add(r);
        }
        return all;
    }

    private static List<String> ids(List<GetResponse> messages) {
        return messages.stream().map(m -> m.getProps().getMessageId()).toList();
    }

    private void awaitReady(String name, int count) {
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.messageCount(name) == count);
    }

    private Cli once(String... args) {
        List<String> all = new ArrayList<>(List.of("dlq"));
        all.addAll(List.of(args));
        all.add("--amqp-uri");
        all.add(Services.AMQP);
        return Cli.run(all.toArray(new String[0]));
    }

    @Test
    void listShowsTheReasonHeadersAndKeepsEveryMessageInOrder() throws Exception {
        Cli run = once("list", queue);
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("3 dead letters in " + dlq,
                "1. message id  m1", "reason      max-attempts  (attempts 5, from queue " + queue + ")",
                "error       java.lang.IllegalStateException: stock service down",
                "2. message id  m2", "reason      conflict", "detail      another payload under this key",
                "3. message id  m3", "body        14 bytes: {\"order\":\"m3\"}");
        assertThat(run.out().indexOf("m1")).isLessThan(run.out().indexOf("m2"));
        assertThat(run.out().indexOf("m2")).isLessThan(run.out().indexOf("m3"));

        Map<String, Object> json = MiniJson.object(once("list", queue, "--json", "--max", "2").out());
        assertThat(json).containsEntry("count", 2L).containsEntry("more", 1L);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> messages = (List<Map<String, Object>>) json.get("messages");
        assertThat(messages).extracting(m -> m.get("messageId") + " " + m.get("reason") + " " + m.get("detail"))
                .containsExactly("m1 max-attempts null", "m2 conflict another payload under this key");

        awaitReady(dlq, 3);
        assertThat(ids(drain(dlq))).containsExactly("m1", "m2", "m3");
        assertThat(channel.messageCount(queue)).isZero();
    }

    @Test
    void moveBringsAChosenMessageBackToTheWorkQueueAndRemovesItFromTheDlq() throws Exception {
        Cli run = once("move", queue, "--message-id", "m2");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("moved 1 dead letter from " + dlq + " to " + queue, "message id  m2");

        awaitReady(queue, 1);
        GetResponse moved = drain(queue).get(0);
        assertThat(moved.getProps().getMessageId()).isEqualTo("m2");
        assertThat(new String(moved.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":\"m2\"}");
        // A fresh set of attempts: the dead-letter headers are gone, the rest is kept.
        assertThat(moved.getProps().getHeaders()).doesNotContainKeys(OnceHeaders.REASON, OnceHeaders.ATTEMPTS,
                OnceHeaders.ATTEMPT, OnceHeaders.QUEUE, OnceHeaders.ERROR)
                .containsKeys(OnceHeaders.ORIGINAL_EXCHANGE, OnceHeaders.ORIGINAL_ROUTING_KEY, "x-app");

        awaitReady(dlq, 2);
        assertThat(ids(drain(dlq))).containsExactly("m1", "m3");
    }

    @Test
    void moveAllKeepsTheOrderAndLosesNothing() throws Exception {
        Map<String, Object> json = MiniJson.object(once("move", queue, "--all", "--json").out());
        assertThat(json).containsEntry("count", 3L);

        awaitReady(queue, 3);
        assertThat(ids(drain(queue))).containsExactly("m1", "m2", "m3");
        assertThat(channel.messageCount(dlq)).isZero();
    }

    @Test
    void anUnknownMessageIdMovesNothingElseAndExitsOne() throws Exception {
        Cli run = once("move", queue, "--message-id", "nope", "--message-id", "m3");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.out()).contains("moved 1 dead letter from", "not found among the first 100 dead letters: nope");

        awaitReady(queue, 1);
        assertThat(ids(drain(queue))).containsExactly("m3");
        awaitReady(dlq, 2);
        assertThat(ids(drain(dlq))).containsExactly("m1", "m2");
    }

    @Test
    void noWorkQueueLeavesTheDeadLetterWhereItWas() throws Exception {
        channel.queueDelete(queue);

        Cli run = once("move", queue, "--all");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.MISSING_SCHEMA);
        assertThat(run.err()).contains("no work queue '" + queue + "'", "nothing was taken from " + dlq);
        awaitReady(dlq, 3);
        assertThat(ids(drain(dlq))).containsExactly("m1", "m2", "m3");
    }

    @Test
    void withoutAnAmqpUriTheBrokerOnThisMachineIsRead() throws Exception {
        Cli run = Cli.run("dlq", "list", queue);
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("3 dead letters in " + dlq + " on the broker at 127.0.0.1:5672");
        awaitReady(dlq, 3);
    }

    @Test
    void aMissingDeadLetterQueueOrBrokerHasItsOwnExitStatus() {
        Cli missing = once("list", "no-such-queue-" + UUID.randomUUID());
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCodes.MISSING_SCHEMA);
        assertThat(missing.err()).contains("no queue 'no-such-queue-");

        Cli down = Cli.run("dlq", "list", queue, "--amqp-uri", "amqp://guest:guest@127.0.0.1:" + Services.deadPort());
        assertThat(down.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(down.err()).startsWith("once: cannot reach the broker at 127.0.0.1:");
    }
}

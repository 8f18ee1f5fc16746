package io.github.once.chaos;

import com.rabbitmq.client.Connection;

import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The publisher process: messages {@code m0 .. m<n-1>} at a steady rate, with confirms, and a share of them sent
 * a second time later with the same id and body (a producer's re-send). Every confirmed send is appended to the
 * output file, one id a line; a batch that is not confirmed is sent again until it is.
 *
 * <pre>
 * java -cp CLASSPATH io.github.once.chaos.Publisher --amqp 127.0.0.1:5701,... --queue Q --messages 3000
 *      --rate 150 --resend-share 0.1 --seed 42 --out published.txt
 * </pre>
 */
public final class Publisher {

    private static final int BATCH = 50;

    private Publisher() {
    }

    public static void main(String[] argv) throws Exception {
        ParentWatch.exitWithParent();
        Args args = Args.parse(argv);
        String queue = args.get("queue");
        int messages = args.getInt("messages", 1000);
        double rate = Double.parseDouble(args.get("rate", "200"));
        double resendShare = Double.parseDouble(args.get("resend-share", "0.1"));
        Random random = new Random(args.getLong("seed", 1));
        Path out = Path.of(args.get("out"));
        Connection connection = Amqp.connect(Amqp.parse(args.get("amqp")), "once-chaos-publisher", 120_000);
        long start = System.nanoTime();
        int sends = 0;
        try (OncePublisher publisher = OnceWiring.publisher(connection);
             BufferedWriter log = Files.newBufferedWriter(out, StandardCharsets.UTF_8,
                     StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            List<Integer> resendLater = new ArrayList<>();
            for (int from = 0; from < messages || !resendLater.isEmpty(); from += BATCH) {
                List<Integer> batch = new ArrayList<>(resendLater);
                resendLater.clear();
                for (int i = from; i < Math.min(messages, from + BATCH); i++) {
                    batch.add(i);
                    if (random.nextDouble() < resendShare) {
                        resendLater.add(i);
                    }
                }
                sendUntilConfirmed(publisher, queue, batch);
                for (int i : batch) {
                    log.write("m" + i);
                    log.newLine();
                }
                log.flush();
                sends += batch.size();
                long due = start + (long) (Math.min(from + BATCH, messages) / rate * 1e9);
                long ahead = due - System.nanoTime();
                if (ahead > 0) {
                    Pause.millis(ahead / 1_000_000L);
                }
            }
        }
        System.out.println("published " + messages + " messages in " + sends + " confirmed sends");
        connection.abort();
    }

    private static void sendUntilConfirmed(OncePublisher publisher, String queue, List<Integer> batch) {
        List<OutboundMessage> out = new ArrayList<>();
        for (int i : batch) {
            out.add(OnceWiring.message(queue, "m" + i, ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
        }
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (true) {
            try {
                publisher.publishAll(out);
                return;
            } catch (RuntimeException e) {
                // Not confirmed (a node down, a connection lost): the same ids again, so a copy that did arrive
                // is a duplicate the consumers must absorb.
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                System.out.println("re-sending a batch of " + out.size() + ": " + e.getMessage());
                Pause.millis(500);
            }
        }
    }
}

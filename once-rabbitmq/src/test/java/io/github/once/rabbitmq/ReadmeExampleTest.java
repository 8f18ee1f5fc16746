package io.github.once.rabbitmq;

import com.example.orders.OrdersConsumer;
import com.example.orders.SendOrder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docs/getting-started.md, the README's first idempotent consumer step by step: its Java blocks are
 * {@code com.example.orders.OrdersConsumer} and {@code com.example.orders.SendOrder}, compiled with these tests, and
 * run against the real RabbitMQ and PostgreSQL (each order sent twice with {@code SendOrder}, shipped once); the
 * artifacts and versions its {@code pom.xml} names are this build's.
 */
class ReadmeExampleTest {

    private static final Path ROOT = Path.of("..");
    private static final Path PAGE = ROOT.resolve("docs/getting-started.md");

    @Test
    void theReadmeShowsTheExampleAsCompiled() throws Exception {
        String example = Files.readString(Path.of("src/test/java/com/example/orders/OrdersConsumer.java")).strip();
        assertThat(blocks("java")).as("docs/getting-started.md shows OrdersConsumer.java as it is").contains(example);
        String sender = Files.readString(Path.of("src/test/java/com/example/orders/SendOrder.java")).strip();
        assertThat(blocks("java")).as("docs/getting-started.md shows SendOrder.java as it is").contains(sender);
    }

    @Test
    void eachOrderSentTwiceIsShippedOnce() throws Exception {
        PGSimpleDataSource db = StartupChecksTest.postgresql();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            orders.add("A-" + UUID.randomUUID().toString().substring(0, 8));
        }
        try (RabbitFixture rabbit = new RabbitFixture()) {
            rabbit.remember(RetryPolicy.defaults());
            try (OnceConsumer consumer = OrdersConsumer.start(rabbit.connect(), db, rabbit.queue);
                 OncePublisher publisher = OncePublisher.builder(rabbit.connect()).build()) {
                for (int round = 0; round < 2; round++) { // two messages of each order, as SendOrder run twice
                    for (String order : orders) {
                        SendOrder.send(publisher, rabbit.queue, order);
                    }
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> rabbit.messageCount(rabbit.queue) == 0
                        && consumer.inFlight() == 0 && shipped(db, orders).stream().mapToInt(n -> n).sum() == 5);
                assertThat(shipped(db, orders)).as("shipments per order").containsOnly(1);
                assertThat(rabbit.messageCount(Topology.deadLetterQueue(rabbit.queue))).isZero();
            }
        } finally {
            try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
                for (String order : orders) {
                    st.execute("DELETE FROM shipment WHERE order_id = '" + order + "'");
                }
            }
        }
    }

    @Test
    void thePomNamesArtifactsAndVersionsOfThisBuild() throws Exception {
        String pom = blocks("xml").stream().filter(b -> b.contains("<project")).findFirst().orElseThrow();
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        List<String> reactor = new ArrayList<>();
        for (String module : all(parent, "<module>([^<]+)</module>")) {
            String modulePom = Files.readString(ROOT.resolve(module).resolve("pom.xml"))
                    .replaceAll("(?s)<parent>.*?</parent>", "");
            reactor.add(all(modulePom, "<artifactId>([^<]+)</artifactId>").get(0));
        }
        List<String> named = all(pom, "<groupId>io\\.github\\.once</groupId>\\s*<artifactId>([^<]+)</artifactId>");
        assertThat(named).containsExactly("once-bom", "once-rabbitmq", "once-jdbc");
        assertThat(reactor).containsAll(named);
        String version = all(parent, "<artifactId>once-parent</artifactId>\\s*<version>([^<]+)</version>").get(0);
        assertThat(pom).contains("<artifactId>once-bom</artifactId>\n        <version>" + version + "</version>\n"
                + "        <type>pom</type>\n        <scope>import</scope>");
        assertThat(pom).contains("<maven.compiler.release>17</maven.compiler.release>");
        assertThat(pom).contains("<artifactId>postgresql</artifactId>\n      <version>"
                + property(parent, "postgresql.version") + "</version>");
        assertThat(pom).contains("<artifactId>slf4j-simple</artifactId>\n      <version>"
                + property(parent, "slf4j.version") + "</version>");
        String bom = Files.readString(ROOT.resolve("once-bom/pom.xml"));
        assertThat(all(bom, "<artifactId>([^<]+)</artifactId>")).as("the BOM manages what the pom leaves unversioned")
                .contains("once-rabbitmq", "once-jdbc");
    }

    private static List<Integer> shipped(PGSimpleDataSource db, List<String> orders) throws Exception {
        List<Integer> counts = new ArrayList<>();
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM shipment WHERE order_id = ?")) {
            for (String order : orders) {
                ps.setString(1, order);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    counts.add(rs.getInt(1));
                }
            }
        }
        return counts;
    }

    /** The fenced code blocks of docs/getting-started.md in {@code language}, without their fences. */
    private static List<String> blocks(String language) throws Exception {
        return all(Files.readString(PAGE), "(?s)```" + language + "\n(.*?)\n```");
    }

    private static String property(String pom, String name) {
        return all(pom, "<" + Pattern.quote(name) + ">([^<]+)</").get(0);
    }

    private static List<String> all(String text, String regex) {
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}

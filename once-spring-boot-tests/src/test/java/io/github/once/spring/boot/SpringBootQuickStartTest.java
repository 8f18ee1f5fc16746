package io.github.once.spring.boot;

import com.example.shop.ShippingListener;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docs/spring.md's "Quick start", and README.md's excerpt of it: its listener is
 * {@code com.example.shop.ShippingListener}, compiled with these tests (the README shows its listener method), and
 * its properties are {@code com/example/shop/application.properties}, which this application runs with (the queue
 * fresh, the lease and retry delays short); each order sent twice is shipped once, on the real
 * RabbitMQ and PostgreSQL. Runs on both Boot lines, like every test of this module.
 */
@SpringBootTest(classes = SpringBootQuickStartTest.App.class, properties = {
        "once.lease=2s",
        "once.retry.backoff=30ms,60ms,120ms"})
@TestPropertySource(locations = "classpath:com/example/shop/application.properties")
class SpringBootQuickStartTest {
    static final String QUEUE = Scenarios.queueName("quickstart");
    static final List<String> ORDERS = new ArrayList<>();
    /** This module's test sources, from its own folder and from once-spring-boot3-tests' alike. */
    static final Path SOURCES = Path.of("../once-spring-boot-tests/src/test");
    static final Path README = Path.of("../README.md");
    static final Path SPRING_DOC = Path.of("../docs/spring.md");

    @DynamicPropertySource
    static void queue(DynamicPropertyRegistry r) {
        r.add("shop.queue", () -> QUEUE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(ShippingListener.class)
    static class App {
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    AmqpAdmin admin;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    RabbitListenerEndpointRegistry listeners;

    @Test
    void theDocsShowTheListenerAsCompiled() throws Exception {
        String listener = Files.readString(SOURCES.resolve("java/com/example/shop/ShippingListener.java")).strip();
        assertThat(blocks(SPRING_DOC, "java")).as("docs/spring.md shows ShippingListener.java as it is")
                .contains(listener);
        List<String> excerpt = blocks(README, "java").stream().filter(b -> b.contains("@Once")).toList();
        assertThat(excerpt).as("README.md shows the listener's method").hasSize(1);
        assertThat(listener).as("README.md's listener method is ShippingListener.java's, as it is")
                .contains(excerpt.get(0));
    }

    @Test
    void theDocsShowThePropertiesThisTestRunsWith() throws Exception {
        String properties = Files.readString(SOURCES.resolve("resources/com/example/shop/application.properties"))
                .strip();
        assertThat(blocks(SPRING_DOC, "properties")).as("docs/spring.md shows application.properties as it is")
                .contains(properties);
        assertThat(blocks(README, "properties")).as("README.md shows application.properties as it is")
                .contains(properties);
    }

    @Test
    void theDocsAddTheStarterAndOnceJdbcFromTheBom() throws Exception {
        String dependencies = blocks(SPRING_DOC, "xml").stream()
                .filter(b -> b.contains("once-spring-boot-starter") && !b.contains("<project"))
                .findFirst().orElseThrow();
        List<String> named = groups(dependencies,
                "<groupId>io\\.github\\.once</groupId>\\s*<artifactId>([^<]+)</artifactId>");
        assertThat(named).containsExactly("once-spring-boot-starter", "once-jdbc");
        assertThat(groups(Files.readString(Path.of("../once-bom/pom.xml")), "<artifactId>([^<]+)</artifactId>"))
                .as("the BOM gives their versions").containsAll(named);
    }

    @Test
    void eachOrderSentTwiceIsShippedOnce() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS shipment (order_id TEXT NOT NULL, body BYTEA NOT NULL,"
                + " shipped_at TIMESTAMPTZ NOT NULL DEFAULT now())"); // the plain quick start's table
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            orders.add("A-" + UUID.randomUUID().toString().substring(0, 8));
        }
        ORDERS.addAll(orders);
        for (int copy = 0; copy < 2; copy++) { // a producer's re-send keeps the message_id
            for (String id : orders) {
                template.send("", QUEUE, message(id, "{\"order_id\": \"" + id + "\", \"sku\": \"book\"}"));
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                shipped(orders).stream().mapToInt(n -> n).sum() == orders.size() && Scenarios.count(admin, QUEUE) == 0);

        // The listeners finish what they hold when stopped; anything left unacknowledged would come back.
        listeners.stop();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> Scenarios.count(admin, QUEUE) == 0);
        assertThat(shipped(orders)).as("shipments per order").containsOnly(1);
        assertThat(Scenarios.count(admin, QUEUE + ".once.dlq")).as("dead letters").isZero();
    }

    private List<Integer> shipped(List<String> orders) {
        return orders.stream().map(id -> jdbc.queryForObject(
                "SELECT count(*) FROM shipment WHERE order_id = ?", Integer.class, id)).toList();
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin,
                        @Autowired JdbcTemplate jdbc) {
        listeners.stop(); // before the queues go, so no consumer restarts on a missing queue
        Scenarios.deleteAll(admin, QUEUE);
        for (String id : ORDERS) {
            jdbc.update("DELETE FROM shipment WHERE order_id = ?", id);
        }
        jdbc.update("DELETE FROM once_record WHERE namespace = ?", QUEUE); // this test's keys only
    }

    /** The fenced blocks of {@code page} in {@code language}, without their fences. */
    private static List<String> blocks(Path page, String language) throws Exception {
        return groups(Files.readString(page), "(?s)```" + language + "\n(.*?)\n```");
    }

    private static List<String> groups(String text, String regex) {
        return Pattern.compile(regex).matcher(text).results().map(m -> m.group(1)).toList();
    }
}

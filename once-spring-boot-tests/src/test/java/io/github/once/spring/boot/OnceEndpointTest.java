package io.github.once.spring.boot;

import io.github.once.rabbitmq.Topology;
import io.github.once.spring.rabbit.Once;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The actuator endpoint {@code once} over HTTP, behind actuator security (a role the operator's user has, HTTP
 * basic), in an application with a JDBC store: without credentials every operation is refused (401); with them,
 * the listener's namespace and its records per standing, one key's record (404 for a key never seen), a dead
 * letter moved back to its queue (and processed there), and the namespace's expired records purged.
 */
@SpringBootTest(classes = OnceEndpointTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "spring.rabbitmq.host=127.0.0.1",
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
                "spring.datasource.username=postgres",
                "once.store=jdbc",
                "once.retention=10s",
                "once.retry.max-attempts=1",
                "once.retry.backoff=30ms",
                "management.endpoints.web.exposure.include=health,once",
                "spring.security.user.name=ops",
                "spring.security.user.password=s3cret",
                "spring.security.user.roles=OPS"})
class OnceEndpointTest {
    static final String QUEUE = Scenarios.queueName("endpoint");

    @DynamicPropertySource
    static void queue(DynamicPropertyRegistry r) {
        r.add("app.queue", () -> QUEUE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Payments.class)
    static class App {
        /** The actuator's endpoints for role OPS over HTTP basic; no CSRF token for an operator's POST and DELETE. */
        @Bean
        SecurityFilterChain actuator(HttpSecurity http) throws Exception {
            return http.securityMatcher("/actuator/**")
                    .authorizeHttpRequests(a -> a.anyRequest().hasRole("OPS"))
                    .httpBasic(Customizer.withDefaults())
                    .csrf(c -> c.disable())
                    .build();
        }
    }

    /** Counts its calls per message id; fails while {@link #FAILING} is set. */
    public static class Payments {
        static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
        static final AtomicBoolean FAILING = new AtomicBoolean(true);

        @RabbitListener(queuesToDeclare = @Queue("${app.queue}"))
        @Once
        public void handle(Message message) {
            String id = message.getMessageProperties().getMessageId();
            CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            if (id.startsWith("bad") && FAILING.get()) {
                throw new IllegalStateException("the payment service is down");
            }
        }
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    AmqpAdmin admin;
    @Autowired
    Environment env;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> call(String method, String path, String body, boolean authenticated)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + env.getRequiredProperty("local.server.port") + "/actuator/once" + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (authenticated) {
            b.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString("ops:s3cret".getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void operationsOverHttpAreRefusedWithoutCredentialsAndDoWhatTheCliDoesWithThem() throws Exception {
        assertThat(call("GET", "", null, false).statusCode()).isEqualTo(401);
        assertThat(call("DELETE", "/" + QUEUE, null, false).statusCode()).isEqualTo(401);
        assertThat(call("POST", "/" + QUEUE, "{\"max\": 10}", false).statusCode()).isEqualTo(401);

        template.send("", QUEUE, Scenarios.message("good-1", "pay"));
        // Read as soon as good-1 is recorded, before bad-1's retries run: the record is well inside its retention
        // (10 s) however slow the machine is, rather than racing a short one.
        await().atMost(Duration.ofSeconds(20)).until(() -> call("GET", "/" + QUEUE + "/good-1", null, true).body()
                .contains("\"state\":\"COMPLETED\""));
        HttpResponse<String> listeners = call("GET", "", null, true);
        assertThat(listeners.statusCode()).isEqualTo(200);
        assertThat(listeners.body()).contains("\"" + QUEUE + "\":{\"namespace\":\"" + QUEUE + "\"", "\"completed\":1");

        HttpResponse<String> record = call("GET", "/" + QUEUE + "/good-1", null, true);
        assertThat(record.statusCode()).isEqualTo(200);
        assertThat(record.body()).contains("\"id\":\"good-1\"", "\"state\":\"COMPLETED\"");
        assertThat(call("GET", "/" + QUEUE + "/never-seen", null, true).statusCode()).isEqualTo(404);

        template.send("", QUEUE, Scenarios.message("bad-1", "pay"));
        String dlq = Topology.deadLetterQueue(QUEUE);
        await().atMost(Duration.ofSeconds(20)).until(() -> Scenarios.count(admin, dlq) == 1);

        // The payment service is back: the dead letter goes back to its queue and is processed there.
        Payments.FAILING.set(false);
        HttpResponse<String> moved = call("POST", "/" + QUEUE, "{\"max\": 10}", true);
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        assertThat(moved.body()).contains("\"moved\":1", "\"messageIds\":[\"bad-1\"]");
        await().atMost(Duration.ofSeconds(20)).until(() -> Payments.CALLS.get("bad-1").get() == 2
                && Scenarios.count(admin, QUEUE) == 0);
        assertThat(Scenarios.count(admin, dlq)).isZero();

        // Both records expire after the retention (10 s): the purge deletes them.
        await().atMost(Duration.ofSeconds(40)).until(() -> call("GET", "/" + QUEUE, null, true).body()
                .contains("\"expiredBacklog\":2"));
        HttpResponse<String> purged = call("DELETE", "/" + QUEUE, null, true);
        assertThat(purged.statusCode()).isEqualTo(200);
        assertThat(purged.body()).contains("\"purged\":2");
        assertThat(call("GET", "/" + QUEUE, null, true).body()).contains("\"completed\":0", "\"expiredBacklog\":0");
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry registry, @Autowired AmqpAdmin admin) {
        registry.stop();
        Scenarios.deleteAll(admin, QUEUE);
    }
}

package io.github.once.spring.boot;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import static io.github.once.spring.boot.Scenarios.count;

/**
 * The application under test ({@link ScenarioApp}) as the scenario suites see it: its beans, its queues (named in
 * its environment, fresh for each subclass's context), its consumer meters, and the clean-up after the class.
 */
@SpringBootTest(classes = ScenarioApp.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "once.store=redis",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "spring.data.redis.host=127.0.0.1",
        "spring.data.redis.port=6379",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms",
        "once.rabbit.store-backoff=200ms",
        "once.rabbit.max-store-backoff=800ms"})
abstract class ScenarioSupport {
    static final String[] RETRY_LEVELS = {"30", "60", "120"};

    @Autowired
    RabbitTemplate template;
    @Autowired
    AmqpAdmin admin;
    @Autowired
    ScenarioListeners listeners;
    @Autowired
    ScenarioStore store;
    @Autowired
    RabbitListenerEndpointRegistry registry;
    @Autowired
    MeterRegistry meters;
    @Autowired
    Environment env;
    @Autowired
    ApplicationContext context;

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry registry, @Autowired AmqpAdmin admin,
                        @Autowired Environment env) {
        registry.stop(); // before the queues go, so no consumer is left to restart on a missing queue
        Scenarios.deleteAll(admin, env);
    }

    /** The context's queue named by property {@code scenario.<name>}. */
    String queue(String name) {
        return Scenarios.queue(env, name);
    }

    /** The consumer counter {@code name} of {@code queue} with the given tags (key, value, ...), summed. */
    double counted(String name, String queue, String... tags) {
        return meters.find(name).tag("queue", queue).tags(tags).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    double action(String queue, String action) {
        return counted("once.consumer.actions", queue, "action", action);
    }

    /** The consumer gauge {@code name} of {@code queue}; 0 before the queue's first delivery. */
    double gauge(String name, String queue) {
        Gauge gauge = meters.find(name).tag("queue", queue).gauge();
        return gauge == null ? 0 : gauge.value();
    }

    double paused(String queue) {
        return gauge("once.consumer.paused", queue);
    }

    /** The status code of Once's health indicator, on either Boot line (their Health classes differ). */
    String health() throws Exception {
        Object indicator = context.getBean("onceHealthIndicator");
        Method health = indicator.getClass().getMethod("health");
        health.setAccessible(true);
        Object result = health.invoke(indicator);
        Object status = result.getClass().getMethod("getStatus").invoke(result);
        return status.getClass().getMethod("getCode").invoke(status).toString();
    }

    double inFlight(String queue) {
        return gauge("once.consumer.in.flight", queue);
    }

    /** The queue and its delay queues hold nothing, and no delivery of it is in Once's hands. */
    boolean quiet(String queue) {
        if (count(admin, queue) != 0 || inFlight(queue) != 0) {
            return false;
        }
        for (String level : RETRY_LEVELS) {
            if (count(admin, queue + ".once.delay." + level) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Every listener container consuming {@code queue} is running. */
    boolean running(String queue) {
        return registry.getListenerContainers().stream()
                .filter(c -> c instanceof AbstractMessageListenerContainer a && List.of(a.getQueueNames()).contains(queue))
                .allMatch(c -> c.isRunning());
    }

    /** How many of {@code ids} have had their effect. */
    long done(List<String> ids) {
        return ids.stream().filter(id -> listeners.effects(id) >= 1).count();
    }
}

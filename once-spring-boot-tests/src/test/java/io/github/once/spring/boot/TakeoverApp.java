package io.github.once.spring.boot;

import io.github.once.spring.rabbit.Once;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionProxy;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A second application, one of several instances consuming one queue (scenario.takeover) with the same store:
 * its one listener counts effects in a map the instances share, and can be held at a gate and then killed.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class TakeoverApp {

    @Bean
    static BeanPostProcessor scenarioStore() {
        return ScenarioStore.wrapping();
    }

    @Bean
    Listener takeoverListener(Instance instance) {
        return new Listener(instance);
    }

    /** What the test gives one instance: the shared effects, and the gate this instance's handler waits at. */
    record Instance(Map<String, AtomicInteger> effects, Gate gate, AtomicBoolean dead) {
    }

    /** Waits at the gate; once the instance is dead, the handler has no effect (the process is gone). */
    public static class Listener {
        private final Instance instance;

        Listener(Instance instance) {
            this.instance = instance;
        }

        @RabbitListener(queuesToDeclare = @Queue("${scenario.takeover}"))
        @Once
        public void handle(Message message) throws InterruptedException {
            if (instance.gate() != null) {
                instance.gate().pass();
            }
            if (instance.dead().get()) {
                throw new IllegalStateException("this process is dead");
            }
            instance.effects().computeIfAbsent(message.getMessageProperties().getMessageId(),
                    k -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** Starts an instance with {@code properties} (key=value). */
    static ConfigurableApplicationContext start(Instance instance, String... properties) {
        return new SpringApplicationBuilder(TakeoverApp.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .initializers(context -> context.getBeanFactory().registerSingleton("instance", instance))
                .run();
    }

    /**
     * Kills an instance as a crash would, short of stopping its JVM: the store hears nothing more from it (no
     * renewal, no completion), its containers take no more work, and its broker connection drops, so the broker
     * requeues what it held.
     */
    static Thread kill(ConfigurableApplicationContext context) {
        context.getBean(Instance.class).dead().set(true);
        context.getBean(ScenarioStore.class).kill();
        // Stopping waits for the held handler, so it runs on a thread of its own.
        Thread stopper = new Thread(() -> context.getBean(RabbitListenerEndpointRegistry.class).stop(),
                "takeover-stop");
        stopper.start();
        CachingConnectionFactory factory = context.getBean(CachingConnectionFactory.class);
        ((ConnectionProxy) factory.createConnection()).getTargetConnection().getDelegate().abort();
        return stopper;
    }
}

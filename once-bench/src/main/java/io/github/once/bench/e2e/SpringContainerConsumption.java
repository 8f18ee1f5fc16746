package io.github.once.bench.e2e;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.Topology;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spring.rabbit.OnceAdvice;

import java.net.URI;
import java.util.List;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * Spring AMQP's {@link SimpleMessageListenerContainer}, set up by hand as a {@code @RabbitListener}'s container
 * would be (no Boot): AUTO ack, the run's prefetch, one consumer per channel of the run, and a listener with the
 * baseline's effect. The Once form has once-spring-rabbit's {@link OnceAdvice} in the advice chain, with the queue
 * registered as {@code @Once} registers it. Latency runs from the container handing a message to its advice chain
 * to the chain returning, right before the container acks: the outermost advice takes both times.
 */
final class SpringContainerConsumption implements Consumption {

    private final SimpleMessageListenerContainer container;
    private final CachingConnectionFactory connectionFactory;
    private final AutoCloseable resources;

    private SpringContainerConsumption(SimpleMessageListenerContainer container,
                                       CachingConnectionFactory connectionFactory, AutoCloseable resources) {
        this.container = container;
        this.connectionFactory = connectionFactory;
        this.resources = resources;
    }

    /** The plain container: the listener alone, no guard. */
    static Consumption plain(Variant.Run run) {
        return start(run, connectionFactory(run), () -> { }, timing(run.meter()));
    }

    /** The same container with Once's advice over {@code store}; the store is closed with the run. */
    static Consumption once(Variant.Run run, IdempotencyStore store, IdempotencyConfig config) {
        Meter meter = run.meter();
        CachingConnectionFactory connectionFactory = connectionFactory(run);
        OnceAdvice advice = OnceAdvice.builder(store, connectionFactory)
                .idempotency(config)
                .executorListener(meter.storeTimes())
                .consumerListeners(queue -> unexpectedActions(meter))
                .build();
        advice.register(run.queue(), ConsumerConfig.custom()
                .namespace(run.namespace())
                .topology(Topology.none())
                .build());
        SpringContainerConsumption consumption = start(run, connectionFactory, () -> {
            try {
                advice.close();
            } finally {
                store.close();
            }
        }, timing(meter), advice);
        advice.containers(() -> List.of(consumption.container));
        return consumption;
    }

    private static SpringContainerConsumption start(Variant.Run run, CachingConnectionFactory connectionFactory,
                                                    AutoCloseable resources, Advice... adviceChain) {
        Meter meter = run.meter();
        SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connectionFactory);
        container.setQueueNames(run.queue());
        container.setAcknowledgeMode(AcknowledgeMode.AUTO);
        container.setPrefetchCount(run.prefetch());
        container.setConcurrentConsumers(run.channels());
        container.setAdviceChain(adviceChain);
        container.setMessageListener(message -> meter.effect());
        SpringContainerConsumption consumption = new SpringContainerConsumption(container, connectionFactory, resources);
        try {
            container.afterPropertiesSet();
            container.start();
        } catch (RuntimeException e) {
            try {
                consumption.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return consumption;
    }

    private static CachingConnectionFactory connectionFactory(Variant.Run run) {
        CachingConnectionFactory factory = new CachingConnectionFactory(URI.create(run.services().amqpUri()));
        factory.setConnectionNameStrategy(f -> "once-bench-spring-container");
        return factory;
    }

    /**
     * The outermost advice: the container has the message in hand when the chain starts, and acks it (AUTO) as
     * soon as the chain returns. A throw would send the message back, which no run should see: it ends the run.
     */
    private static MethodInterceptor timing(Meter meter) {
        return invocation -> {
            long delivered = meter.delivered();
            Object result;
            try {
                result = invocation.proceed();
            } catch (Throwable t) {
                meter.fail("the listener call threw " + t);
                throw t;
            }
            meter.acked(delivered);
            return result;
        };
    }

    /** Anything but processed (a duplicate, a retry, a requeue) is a failure of the run, as for OnceConsumer. */
    private static ConsumerListener unexpectedActions(Meter meter) {
        return new ConsumerListener() {
            @Override
            public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
                if (action != ConsumerAction.PROCESSED) {
                    meter.fail(action + " for message " + key);
                }
            }
        };
    }

    @Override
    public void close() {
        try {
            container.destroy();
        } finally {
            try {
                resources.close();
            } catch (Exception e) {
                throw new IllegalStateException("could not close the store of a Spring container variant", e);
            } finally {
                connectionFactory.destroy();
            }
        }
    }
}

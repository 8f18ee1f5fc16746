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

import java.util.List;

import org.aopalliance.aop.Advice;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * Spring AMQP's {@link SimpleMessageListenerContainer}, set up by hand as a {@code @RabbitListener}'s container
 * would be (no Boot): AUTO ack, the run's prefetch, one consumer per channel of the run, and a listener with the
 * baseline's effect. The Once form has once-spring-rabbit's {@link OnceAdvice} in the advice chain, with the queue
 * registered as {@code @Once} registers it. {@link ContainerAckMeter} times each message from the container
 * handing it to the advice chain to its ack written.
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
        ContainerAckMeter acks = new ContainerAckMeter(run.meter());
        return start(run, connectionFactory(run, acks), () -> { }, acks.advice());
    }

    /** The same container with Once's advice over {@code store}; the store is closed with the run. */
    static Consumption once(Variant.Run run, IdempotencyStore store, IdempotencyConfig config) {
        Meter meter = run.meter();
        ContainerAckMeter acks = new ContainerAckMeter(meter);
        CachingConnectionFactory connectionFactory = connectionFactory(run, acks);
        StoreTimes storeTimes = meter.storeTimes();
        OnceAdvice advice = OnceAdvice.builder(store, connectionFactory)
                .idempotency(config)
                .executorListeners(namespace -> storeTimes)
                .consumerListeners(queue -> unexpectedActions(meter))
                .build();
        advice.register(run.queue(), ConsumerConfig.builder()
                .namespace(run.namespace())
                .topology(Topology.none())
                .build());
        SpringContainerConsumption consumption = start(run, connectionFactory, () -> {
            try {
                advice.close();
            } finally {
                store.close();
            }
        }, acks.advice(), advice);
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
        container.setBatchSize(1);
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

    private static CachingConnectionFactory connectionFactory(Variant.Run run, ContainerAckMeter acks) {
        CachingConnectionFactory factory =
                new CachingConnectionFactory(acks.rabbitConnectionFactory(run.services().amqpUri()));
        factory.setConnectionNameStrategy(f -> "once-bench-spring-container");
        return factory;
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

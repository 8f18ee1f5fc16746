package io.github.once.spring.boot;

import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.DirectRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The application under test: Boot's auto-configuration (a {@code SimpleMessageListenerContainer} factory, or a
 * {@code DirectMessageListenerContainer} one with {@code spring.rabbitmq.listener.type=direct}), the listeners, a
 * batch container factory of the same kind with the batch listener that kind supports, the store seen through
 * {@link ScenarioStore}, and broker connections named for this context.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ScenarioApp {
    /** How soon a container restarts the consumers it lost with a channel or a connection. */
    static final long RESTART_MS = 200;

    @Bean
    ScenarioListeners listeners() {
        return new ScenarioListeners();
    }

    @Bean
    @ConditionalOnProperty(name = "spring.rabbitmq.listener.type", havingValue = "simple", matchIfMissing = true)
    ScenarioListeners.ConsumerBatch consumerBatch(ScenarioListeners listeners) {
        return new ScenarioListeners.ConsumerBatch(listeners);
    }

    @Bean
    @ConditionalOnProperty(name = "spring.rabbitmq.listener.type", havingValue = "direct")
    ScenarioListeners.ProducerBatch producerBatch(ScenarioListeners listeners) {
        return new ScenarioListeners.ProducerBatch(listeners);
    }

    @Bean
    ConnectionName connectionName() {
        return ConnectionName.fresh();
    }

    @Bean
    static BeanPostProcessor scenarioStore() {
        return ScenarioStore.wrapping();
    }

    /**
     * Containers retry a consumer that could not start after a recovery interval, and a direct container checks its
     * consumers on its monitor interval and restarts lost ones at most once per failed-declaration retry interval:
     * 5 s each by default; the tests wait for less.
     */
    @Bean
    static BeanPostProcessor quickContainerRecovery() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                if (bean instanceof AbstractRabbitListenerContainerFactory<?> factory) {
                    factory.setRecoveryInterval(RESTART_MS);
                }
                if (bean instanceof DirectRabbitListenerContainerFactory direct) {
                    direct.setMonitorInterval(RESTART_MS);
                    direct.setFailedDeclarationRetryInterval(RESTART_MS);
                }
                return bean;
            }
        };
    }

    /**
     * The batch listener's factory. A simple container batches on the consumer side (up to 10 messages at
     * once); a direct container cannot, and hands a batch listener the batches a producer made
     * ({@code BatchingRabbitTemplate}), each one AMQP message.
     */
    @Bean
    AbstractRabbitListenerContainerFactory<?> batchFactory(ConnectionFactory connectionFactory, Environment env) {
        if ("direct".equals(env.getProperty("spring.rabbitmq.listener.type"))) {
            DirectRabbitListenerContainerFactory f = new DirectRabbitListenerContainerFactory();
            f.setConnectionFactory(connectionFactory);
            f.setBatchListener(true);
            return f;
        }
        SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
        f.setConnectionFactory(connectionFactory);
        f.setBatchListener(true);
        f.setConsumerBatchEnabled(true);
        f.setBatchSize(10);
        f.setReceiveTimeout(100L);
        f.setPrefetchCount(20);
        return f;
    }
}

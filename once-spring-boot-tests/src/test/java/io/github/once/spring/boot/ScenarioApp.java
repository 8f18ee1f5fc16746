package io.github.once.spring.boot;

import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The application under test: Boot's auto-configuration, the listeners and a batch container factory. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ScenarioApp {

    @Bean
    ScenarioListeners listeners() {
        return new ScenarioListeners();
    }

    /** Consumer batching: the listener takes up to 10 messages at once. */
    @Bean
    SimpleRabbitListenerContainerFactory batchFactory(ConnectionFactory connectionFactory) {
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

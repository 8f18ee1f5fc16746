package io.github.once.spring.boot;

import java.util.UUID;

import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionNameStrategy;

/**
 * The name of one application context's broker connections (Boot hands this bean to its connection factory), so a
 * test closes its own connections from the broker's side and nobody else's.
 */
record ConnectionName(String value) implements ConnectionNameStrategy {

    static ConnectionName fresh() {
        return new ConnectionName("once-spring-test-" + UUID.randomUUID());
    }

    @Override
    public String obtainNewConnectionName(ConnectionFactory connectionFactory) {
        return value;
    }

    /** Closes this context's connections from the broker's side; returns how many there were. */
    int closeFromBroker() {
        return RabbitCtl.closeConnectionsNamed(value);
    }
}

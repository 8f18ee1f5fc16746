package io.github.once.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.PossibleAuthenticationFailureException;

import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Opens a connection whose failure says where it went and what to check. amqp-client's own
 * {@code ConnectException: Connection refused} names no host.
 */
public final class RabbitConnections {
    private RabbitConnections() {
    }

    /**
     * {@code factory.newConnection(clientName)}, failing with a message that names the broker's host and port.
     *
     * @param clientName shown in the management UI's connection list
     * @throws OnceConsumer.StartupException when RabbitMQ cannot be reached, refuses the credentials or does not answer in time
     */
    public static Connection open(ConnectionFactory factory, String clientName) {
        Objects.requireNonNull(factory, "factory");
        String broker = "amqp://" + factory.getHost() + ":" + factory.getPort() + " (virtual host '"
                + factory.getVirtualHost() + "')";
        try {
            return factory.newConnection(clientName);
        } catch (PossibleAuthenticationFailureException e) {
            throw new OnceConsumer.StartupException("RabbitMQ at " + broker + " refused user '" + factory.getUsername() + "' ("
                    + e.getMessage() + "): check ConnectionFactory.setUsername/setPassword and the user's"
                    + " permissions on the virtual host", e);
        } catch (IOException e) {
            throw new OnceConsumer.StartupException("Cannot reach RabbitMQ at " + broker + ": " + e
                    + ". Check that RabbitMQ runs there, or set its address with ConnectionFactory.setHost and"
                    + " setPort (or setUri)", e);
        } catch (TimeoutException e) {
            throw new OnceConsumer.StartupException("RabbitMQ at " + broker + " did not answer within "
                    + factory.getConnectionTimeout() + " ms: check the address and the network", e);
        }
    }
}

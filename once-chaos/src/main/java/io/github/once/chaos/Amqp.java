package io.github.once.chaos;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** Connections to the cluster: every node's address, automatic recovery, short heartbeats, retried at start. */
final class Amqp {

    private Amqp() {
    }

    static List<Address> parse(String addressList) {
        List<Address> addresses = new ArrayList<>();
        for (String part : addressList.split(",")) {
            String[] hp = part.trim().split(":");
            addresses.add(new Address(hp[0], Integer.parseInt(hp[1])));
        }
        return addresses;
    }

    static Connection connect(List<Address> addresses, String name, long timeoutMillis) {
        return connect(addresses, name, timeoutMillis, true);
    }

    /** @param topologyRecovery whether queues declared on it are declared again on recovery (not for the harness) */
    static Connection connect(List<Address> addresses, String name, long timeoutMillis, boolean topologyRecovery) {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUsername("guest");
        factory.setPassword("guest");
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(topologyRecovery);
        factory.setNetworkRecoveryInterval(500);
        factory.setRequestedHeartbeat(5);
        factory.setConnectionTimeout(3000);
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            try {
                // The client tries the addresses in turn (shuffled), at start and on every recovery.
                return factory.newConnection(addresses, name);
            } catch (IOException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no node of " + addresses + " took a connection", e);
                }
                Pause.millis(500);
            }
        }
    }
}

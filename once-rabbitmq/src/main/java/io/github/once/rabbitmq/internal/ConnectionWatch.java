package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;

import io.github.once.rabbitmq.ConsumerListener;

import java.time.Duration;

/**
 * Logs, once per consumer rather than once per channel, when the broker connection is lost and when the client's
 * automatic recovery brings it back (the channels and their consumers are recovered by then).
 */
public final class ConnectionWatch {
    private final Connection connection;
    private final ConsumerListener listener;
    private final ShutdownListener lost = this::lost;
    private final RecoveryListener recovered = new RecoveryListener() {
        @Override
        public void handleRecovery(Recoverable recoverable) {
            long since = lostAt;
            listener.onConnectionRecovered(describe(connection),
                    Duration.ofNanos(since == 0 ? 0 : System.nanoTime() - since));
        }

        @Override
        public void handleRecoveryStarted(Recoverable recoverable) {
        }
    };
    private volatile long lostAt;

    public ConnectionWatch(Connection connection, ConsumerListener listener) {
        this.connection = connection;
        this.listener = listener;
    }

    public void install() {
        connection.addShutdownListener(lost);
        if (connection instanceof Recoverable recoverable) {
            recoverable.addRecoveryListener(recovered);
        }
    }

    public void remove() {
        connection.removeShutdownListener(lost);
        if (connection instanceof Recoverable recoverable) {
            recoverable.removeRecoveryListener(recovered);
        }
    }

    private void lost(ShutdownSignalException cause) {
        if (cause.isInitiatedByApplication()) {
            return; // closed by its owner: not a loss
        }
        lostAt = System.nanoTime();
        boolean recovering = connection instanceof Recoverable;
        listener.onConnectionLost(describe(connection), cause, recovering);
    }

    /** host:port of an open connection, for messages. */
    public static String describe(Connection connection) {
        return connection.getAddress().getHostAddress() + ":" + connection.getPort();
    }
}

package io.github.once.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL only: holds one connection that {@code LISTEN}s on the outbox table's channel and wakes the relay
 * whenever a writing transaction commits. A lost connection is opened again with back-off; after each (re)connect
 * the relay is woken once, to catch up on whatever committed while nobody listened.
 */
public final class PgNotifications implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final int WAIT_MILLIS = 500;

    private final DataSource dataSource;
    private final String channel;
    private final WakeSignal wake;
    private volatile boolean running = true;

    public PgNotifications(DataSource dataSource, String channel, WakeSignal wake) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wake = wake;
    }

    @Override
    public void run() {
        Duration backoff = Duration.ofMillis(200);
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN \"" + channel + "\"");
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                log.debug("Listening for outbox commits on channel {}", channel);
                backoff = Duration.ofMillis(200);
                wake.signal();
                while (running) {
                    PGNotification[] notes = pg.getNotifications(WAIT_MILLIS);
                    if (notes != null && notes.length > 0) {
                        wake.signal();
                    }
                }
                // A pooled connection must not go back still listening: nobody would read its notifications,
                // and PostgreSQL keeps the queue for the slowest listener.
                try (Statement st = c.createStatement()) {
                    st.execute("UNLISTEN *");
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                log.warn("Listening for outbox commits on channel {} failed; the relay polls meanwhile and listens"
                        + " again in {}", channel, backoff, e);
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0
                        ? Duration.ofSeconds(30) : backoff.multipliedBy(2);
            }
        }
    }

    public void stop() {
        running = false;
    }
}

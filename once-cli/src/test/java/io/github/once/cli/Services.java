package io.github.once.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** The local services the tests use; a test that needs one fails loudly when it is down. */
public final class Services {
    private Services() {
    }

    public static final String AMQP = "amqp://guest:guest@127.0.0.1:5672/%2F";
    public static final String REDIS = "redis://127.0.0.1:6379";
    public static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    public static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    /** A local port with nothing listening on it (it was free a moment ago). */
    public static int deadPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

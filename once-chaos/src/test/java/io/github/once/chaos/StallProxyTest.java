package io.github.once.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class StallProxyTest {

    /** Echoes each byte back, on its own thread. */
    private static ServerSocket echoServer() throws IOException {
        ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = server.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                int b;
                while ((b = in.read()) >= 0) {
                    out.write(b);
                    out.flush();
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        t.setDaemon(true);
        t.start();
        return server;
    }

    @Test
    void forwardsBothWaysAndHoldsEveryByteWhileStalled() throws Exception {
        try (ServerSocket echo = echoServer();
             StallProxy proxy = new StallProxy(echo.getLocalPort());
             Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.getOutputStream().write('a');
            assertThat(client.getInputStream().read()).isEqualTo('a');

            // Stalled for far longer than the test looks, then released: no window a slow machine could miss.
            proxy.stall(60_000);
            long stalledAt = System.nanoTime();
            client.getOutputStream().write('b');
            CompletableFuture<Integer> reply = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.getInputStream().read();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(30)).until(() -> !reply.isDone());
            assertThat(reply).as("held while stalled").isNotDone();
            proxy.stall(0);

            assertThat(reply.get(5, TimeUnit.SECONDS)).isEqualTo('b');
            assertThat(Duration.ofNanos(System.nanoTime() - stalledAt)).isGreaterThanOrEqualTo(Duration.ofMillis(1000));
        }
    }

    @Test
    void aConnectionToADownTargetIsClosedAtOnce() throws Exception {
        int freePort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = s.getLocalPort();
        }
        try (StallProxy proxy = new StallProxy(freePort);
             Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.setSoTimeout(5000);
            assertThat(client.getInputStream().read()).isEqualTo(-1);
        }
    }
}

package io.github.once.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of a store that can stall: connections stay open but no byte moves either way until the
 * stall ends, as with a congested network or a server frozen by a long pause. Clients see their calls time out,
 * not fail fast.
 */
final class StallProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile long stalledUntilNanos = System.nanoTime();
    private volatile boolean closed;

    StallProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "stall-proxy-" + targetPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Holds every byte for {@code millis}, from now. */
    void stall(long millis) {
        stalledUntilNanos = System.nanoTime() + millis * 1_000_000L;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                try {
                    upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                } catch (IOException refused) {
                    client.close(); // the store is down: the client sees what it would see without the proxy
                    continue;
                }
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("stall proxy: " + e);
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    awaitUnstalled();
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away: close both, as a real network path would
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "stall-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void awaitUnstalled() {
        long wait;
        while ((wait = stalledUntilNanos - System.nanoTime()) > 0 && !closed) {
            try {
                Thread.sleep(Math.min(50, Math.max(1, wait / 1_000_000L)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void closeQuietly(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        sockets.forEach(this::closeQuietly);
    }
}

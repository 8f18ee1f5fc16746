package io.github.once.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 in front of a real service, to take that service away from one store or client on
 * demand without touching the service itself (other tests keep using it): {@link #cut()} drops every open
 * connection; {@link #block()} also refuses new ones until {@link #restore()}.
 */
public final class FaultProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean blocked;
    private volatile boolean closed;

    /** Listens on a spare port of 127.0.0.1 and forwards each connection to {@code targetHost:targetPort}. */
    public FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread acceptor = new Thread(this::accept, "fault-proxy-" + targetPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port the proxy listens on. */
    public int port() {
        return server.getLocalPort();
    }

    /** Drops every open connection; new ones are still forwarded. */
    public void cut() {
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    /** Drops every open connection and refuses new ones until {@link #restore()}. */
    public void block() {
        blocked = true;
        cut();
    }

    /** Forwards new connections again. */
    public void restore() {
        blocked = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (blocked) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket();
                try {
                    upstream.connect(new InetSocketAddress(targetHost, targetPort), 2000);
                } catch (IOException e) {
                    closeQuietly(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away: drop both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "fault-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        cut();
    }
}

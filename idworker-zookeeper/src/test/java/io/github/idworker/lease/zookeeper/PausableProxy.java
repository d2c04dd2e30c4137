package io.github.idworker.lease.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay between ZooKeeper clients and a real server that can stop relaying: while paused, every byte
 * either way is held back, as a stalled server or a silent network would. Clients then see no answer, and their
 * own timeouts decide what happens. Nothing is faked: requests that get through reach the real server.
 */
final class PausableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private volatile boolean paused;
    private volatile boolean closed;

    PausableProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "zk-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    void pause() {
        paused = true;
    }

    void resume() {
        synchronized (gate) {
            paused = false;
            gate.notifyAll();
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                // ZooKeeper's requests are small: Nagle's delay would add tens of milliseconds to each
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                relay(client, server);
                relay(server, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void relay(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    awaitOpen();
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException ignored) {
                // one side went away: the other is closed below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "zk-proxy-relay");
        t.setDaemon(true);
        t.start();
    }

    private void awaitOpen() throws InterruptedException {
        synchronized (gate) {
            while (paused && !closed) {
                gate.wait(100);
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        resume();
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(PausableProxy::closeQuietly);
    }
}

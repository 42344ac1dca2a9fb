package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.winsock.WinsockEmulator;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Starts servers on loopback for tests and stops them afterwards. */
final class ServerFixture implements AutoCloseable {

    private final List<SocketServer> servers = new ArrayList<>();

    private final List<Socket> clients = new ArrayList<>();

    /** The system property naming the backend the server tests run on: {@code auto} unless set (the build runs them once on {@code winsock}). */
    static final String BACKEND_PROPERTY = "sockstate.test.backend";

    /** @return the backend the server tests run on */
    static Backend backend() {
        return MisbehavingBackend.whenAsked(Backends.select(System.getProperty(BACKEND_PROPERTY, "auto")));
    }

    SocketServer start(int workers, ListenerSettings... listeners) {
        return start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers)), listeners);
    }

    SocketServer start(List<WorkerGroupSettings> groups, ListenerSettings... listeners) {
        return start(groups, ServerObserver.NONE, listeners);
    }

    SocketServer start(List<WorkerGroupSettings> groups, ServerObserver observer, ListenerSettings... listeners) {
        return start(backend(), groups, observer, listeners);
    }

    SocketServer start(Backend backend, List<WorkerGroupSettings> groups, ServerObserver observer, ListenerSettings... listeners) {
        return start(backend, groups, List.of(), observer, listeners);
    }

    /** @return a server of one group of two workers with those clients and listeners, started */
    SocketServer startWithClients(List<ClientSettings> clients, ServerObserver observer, ListenerSettings... listeners) {
        return start(backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), clients, observer, listeners);
    }

    SocketServer start(Backend backend, List<WorkerGroupSettings> groups, List<ClientSettings> clients, ServerObserver observer,
            ListenerSettings... listeners) {
        SocketServer server = new SocketServer(backend, groups, List.of(listeners), clients, observer);
        server.start();
        this.servers.add(server);
        return server;
    }

    /**
     * Starts a server on the winsock backend over the emulator, which must be in its strict mode.
     * @param winsock the winsock backend (or one that watches it)
     * @param emulator the emulator the backend is bound to
     */
    SocketServer startOnStrictEmulator(Backend winsock, WinsockEmulator emulator, int workers, ListenerSettings listener) {
        assertThat(emulator.emu_mode()).as("the emulator's mode").isEqualTo(WinsockEmulator.STRICT);
        return start(winsock, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers)), ServerObserver.NONE, listener);
    }

    Socket connect(SocketServer server, String listener) throws IOException {
        Socket socket = new Socket();
        this.clients.add(socket);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener(listener).portNumber()), 5000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /**
     * A client whose small receive window keeps most of a big reply in the server's queue.
     * @return the connected socket, closed with the fixture
     */
    Socket connectWithSmallWindow(SocketServer server, String listener) throws IOException {
        Socket socket = new Socket();
        this.clients.add(socket);
        socket.setReceiveBufferSize(16 * 1024);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener(listener).portNumber()), 5000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /** @return how many of {@code expected} bytes arrived before the stream ended (a read that times out throws) */
    static long readCount(InputStream in, long expected) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        while (total < expected) {
            int read = in.read(chunk, 0, (int) Math.min(chunk.length, expected - total));
            if (read < 0) {
                break;
            }
            total += read;
        }
        return total;
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("Timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    static ListenerSettings.Builder tcp(String name) {
        return ListenerSettings.tcp(name).address(InetAddress.getLoopbackAddress());
    }

    static ListenerSettings.Builder udp(String name) {
        return ListenerSettings.udp(name).address(InetAddress.getLoopbackAddress());
    }

    /** @return the processor time the default group's worker threads have used so far, in nanoseconds */
    static long workerCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("sockstate-default-")) {
                total += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return total;
    }

    /** @return the server started last */
    SocketServer lastStarted() {
        return this.servers.get(this.servers.size() - 1);
    }

    @Override
    public void close() throws IOException {
        for (Socket client : this.clients) {
            client.close();
        }
        for (SocketServer server : this.servers) {
            server.stop(Duration.ofSeconds(5));
        }
    }
}

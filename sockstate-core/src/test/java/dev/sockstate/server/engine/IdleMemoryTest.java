package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.sockstate.port.MisbehavingBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an idle TCP connection costs its server's heap: at most 184 bytes, whatever a connection can
 * do (clients, the PROXY protocol, peer credentials, TLS) beyond its plain traffic. (A connection
 * that once used one of those, or kept a frame across reads, also keeps its {@code ConnectionExtras}.)
 * Thousands of connections are held idle by clients in a process of their own, whose sockets take
 * nothing from this heap, and the heap in use after full collections is read before and after.
 * <p>
 * On epoll and on winsock (the emulator's sockets are native memory) the heap holds nothing else
 * per connection. The portable nio backend is not held to it: each of its sockets is a JDK
 * {@code SocketChannel} with its selection key and its {@code NioSocket}, about a kilobyte more of
 * heap per connection that no setting of the server changes, and that the bound, taken on epoll,
 * never counted.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IdleMemoryTest {

    /** Bytes of heap one idle connection may hold: its {@code TcpConnection} and its {@code WritePath}. */
    private static final long BOUND = 184;

    /** Connections held at most: enough that the noise of a heap reading (some KiB) is a byte or less each. */
    private static final int MOST = 10_000;

    /** Connections held at least; fewer would let the heap's noise decide. */
    private static final int LEAST = 2_000;

    /** Descriptors left to the rest of this process (jars, the ports, the workers' pipes). */
    private static final int SPARE = 500;

    private final ServerFixture fixture = new ServerFixture();

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void anIdleConnectionHoldsAtMost184BytesOfHeap() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        assumeFalse(ServerFixture.backend().name().equals("nio"), "the nio backend's sockets are JDK channels on the heap");
        int connections = connectionsThisProcessMayHold();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("idle").maxConnections(MOST).handler(new EchoHandler()).build());
        // Warm-up: what the first connections make once (classes, the workers' lent memory) is not counted.
        for (int i = 0; i < 50; i++) {
            try (Socket client = this.fixture.connect(server, "idle")) {
                client.getOutputStream().write(1);
                assertThat(client.getInputStream().read()).isEqualTo(1);
            }
        }
        ServerFixture.await(() -> server.listener("idle").activeConnections() == 0, "the warm-up's connections closed");
        Process clients = startClients(server.listener("idle").portNumber(), connections);
        try (BufferedReader out = new BufferedReader(new InputStreamReader(clients.getInputStream(), StandardCharsets.UTF_8));
                Writer in = new OutputStreamWriter(clients.getOutputStream(), StandardCharsets.UTF_8)) {
            // The clients' process is up, and this side of its pipes made, before the first reading.
            assertThat(out.readLine()).as("the clients' first line").isEqualTo("READY");
            long before = heapUsedAfterGc();
            in.write("connect\n");
            in.flush();
            assertThat(out.readLine()).as("the clients' report").isEqualTo("OPEN " + connections);
            ServerFixture.await(() -> server.listener("idle").activeConnections() == connections, "all connections open");
            long after = heapUsedAfterGc();
            double perConnection = (double) (after - before) / connections;
            assertThat(perConnection).as("bytes of heap per idle connection, over %d connections", connections)
                    .isLessThanOrEqualTo(BOUND);
        }
        finally {
            if (!clients.waitFor(30, TimeUnit.SECONDS)) {
                clients.destroyForcibly();
            }
        }
        ServerFixture.await(() -> server.listener("idle").activeConnections() == 0, "all connections closed");
    }

    /** @return how many connections this process's descriptor limit leaves room for, at most {@link #MOST} */
    private static int connectionsThisProcessMayHold() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean system)) {
            // Windows: no limit of descriptors per process to size the test by.
            return MOST;
        }
        long room = system.getMaxFileDescriptorCount() - system.getOpenFileDescriptorCount() - SPARE;
        assertThat(room).as("descriptors this process may still open (ulimit -n)").isGreaterThanOrEqualTo(LEAST);
        return (int) Math.min(MOST, room);
    }

    /** @return the clients' process, on this JVM's class path, holding as many connections to the port */
    private static Process startClients(int port, int connections) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                IdleClientsMain.class.getName(), String.valueOf(port), String.valueOf(connections));
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        return builder.start();
    }

    /** @return the heap in use after full collections, the least of several readings */
    private long heapUsedAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, this.memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The echo path allocates nothing per message on the epoll backend, whichever binding the JDK
 * runs it on (JNA on 17 to 21, the foreign function API from 22): after a warm-up, 20,000 echoed
 * messages on connections of a real server add no more to its worker's allocated bytes than the
 * measurement's own slack, in each layout (a port per worker with level-persistent connections,
 * the starter's default; a shared port with level one-shot connections) and with line framing.
 * A handler that copies each message shows the measurement sees what the worker allocates.
 */
@EnabledIf("onEpoll")
class EchoPathAllocationTest {

    private static final int MESSAGES = 20_000;

    private static final int CONNECTIONS = 4;

    /** Bytes the measurement itself may cost (a compilation's, a timer's), far from a byte a message. */
    private static final long ALLOWED_BYTES = 8_192;

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    static boolean onEpoll() {
        return ServerFixture.backend().name().equals("epoll");
    }

    @Test
    void aPortPerWorkerWithPersistentConnectionsEchoesWithoutAllocating() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        assertThat(echoAllocation(WorkerGroupSettings.of("alloc", 1).withPortPerWorker(true), ListenerSettings.tcp("echo")))
                .as("bytes the worker allocated echoing %,d messages", MESSAGES).isLessThan(ALLOWED_BYTES);
    }

    @Test
    void aSharedPortWithOneShotConnectionsEchoesWithoutAllocating() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        assertThat(echoAllocation(WorkerGroupSettings.of("alloc", 1), ListenerSettings.tcp("echo")))
                .as("bytes the worker allocated echoing %,d messages", MESSAGES).isLessThan(ALLOWED_BYTES);
    }

    /**
     * A framed read's replies go out as the read ends, a send 12 calls below the compiled root: on the
     * foreign function API each such send allocated the JDK's slice of the errno capture segment (40 B)
     * while the binding's handles were constants, since C2 stops inlining at {@code MaxInlineLevel}.
     */
    @Test
    void aLineFramedEchoAllocatesNothingPerMessage() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        assertThat(lineFramedEchoAllocation()).as("bytes the worker allocated echoing %,d lines", MESSAGES).isLessThan(ALLOWED_BYTES);
    }

    private long lineFramedEchoAllocation() throws Exception {
        return echoAllocation(WorkerGroupSettings.of("alloc", 1).withPortPerWorker(true), ListenerSettings.tcp("echo").framing(Framing.line()));
    }

    /**
     * A UDP listener's receive takes a batch ({@code recvmmsg}) into native memory of the socket's own, decodes
     * each sender into a reusable address, and the replies are copied into the socket's send batch, which
     * leaves in one {@code sendmmsg}: nothing a datagram.
     */
    @Test
    void aUdpListenerReceivesInBatchesAndAnswersEachDatagramWithoutAllocating() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of("alloc", 1)), ServerObserver.NONE,
                ListenerSettings.udp("echo").group("alloc").address(InetAddress.getLoopbackAddress())
                        .handler((endpoint, data, sender) -> endpoint.send(data, sender)).build());
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber());
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            DatagramPacket message = new DatagramPacket(new byte[64], 64, address);
            DatagramPacket reply = new DatagramPacket(new byte[128], 128);
            long fewest = fewestAllocated(WorkerGroupSettings.of("alloc", 1), () -> echoDatagrams(client, message, reply));
            assertThat(fewest).as("bytes the worker allocated answering %,d datagrams", MESSAGES).isLessThan(ALLOWED_BYTES);
        }
    }

    /** Sends datagrams in bursts of eight, so that receives take several at once, and reads each burst's answers. */
    private static void echoDatagrams(DatagramSocket client, DatagramPacket message, DatagramPacket reply) throws IOException {
        for (int i = 0; i < MESSAGES; i += 8) {
            for (int j = 0; j < 8; j++) {
                message.getData()[0] = (byte) j;
                client.send(message);
            }
            for (int j = 0; j < 8; j++) {
                reply.setLength(128);
                client.receive(reply);
                if (reply.getLength() != 64) {
                    throw new AssertionError("datagram " + (i + j) + " came back " + reply.getLength() + " bytes long");
                }
            }
        }
    }

    @Test
    void theMeasurementSeesAHandlerThatCopiesEachMessage() throws Exception {
        ConnectionHandler copying = new EchoHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                byte[] copy = new byte[data.remaining()];
                data.get(copy);
                connection.write(ByteBuffer.wrap(copy));
            }
        };
        assertThat(echoAllocation(WorkerGroupSettings.of("alloc", 1).withPortPerWorker(true), ListenerSettings.tcp("echo"), copying))
                .as("bytes the worker allocated echoing %,d messages, each copied", MESSAGES).isGreaterThan(MESSAGES * 64L);
    }

    private long echoAllocation(WorkerGroupSettings group, ListenerSettings.Builder listener) throws Exception {
        return echoAllocation(group, listener, new EchoHandler());
    }

    /** @return the bytes the group's worker allocated over the measured messages (the fewest of up to three runs), after three times as many of warm-up */
    private long echoAllocation(WorkerGroupSettings group, ListenerSettings.Builder listener, ConnectionHandler handler) throws Exception {
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(group), ServerObserver.NONE,
                listener.group("alloc").address(InetAddress.getLoopbackAddress()).handler(handler).build());
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber());
        SocketChannel[] clients = new SocketChannel[CONNECTIONS];
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                clients[i] = SocketChannel.open(address);
            }
            ByteBuffer message = ByteBuffer.allocateDirect(64);
            ByteBuffer reply = ByteBuffer.allocateDirect(64);
            return fewestAllocated(group, () -> echo(clients, message, reply));
        }
        finally {
            for (SocketChannel client : clients) {
                if (client != null) {
                    client.close();
                }
            }
        }
    }

    /** Sends 63 bytes and a newline on each connection in turn, each time reading the echo whole. */
    private static void echo(SocketChannel[] clients, ByteBuffer message, ByteBuffer reply) throws IOException {
        for (int i = 0; i < MESSAGES; i++) {
            SocketChannel client = clients[i % clients.length];
            message.clear();
            while (message.position() < 63) {
                message.put((byte) ('a' + (i % 26)));
            }
            message.put((byte) '\n').flip();
            while (message.hasRemaining()) {
                client.write(message);
            }
            reply.clear();
            while (reply.hasRemaining()) {
                if (client.read(reply) < 0) {
                    throw new IOException("the server closed connection " + (i % clients.length) + " at message " + i);
                }
            }
            reply.flip();
            message.flip();
            if (!reply.equals(message)) {
                throw new AssertionError("message " + i + " came back changed");
            }
        }
    }

    /** One round of traffic through the server. */
    private interface Round {

        void run() throws IOException;
    }

    /**
     * @return the bytes the group's worker allocated over one round (the fewest of up to three), after three
     * rounds of warm-up: on a loaded machine the compiler may still be at work on the path in the first
     * measured (interpreted code allocates what compiled code does not)
     */
    private static long fewestAllocated(WorkerGroupSettings group, Round round) throws IOException {
        for (int warmUp = 0; warmUp < 3; warmUp++) {
            round.run();
        }
        Thread worker = workerThread(group);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long fewest = Long.MAX_VALUE;
        for (int measurement = 0; measurement < 3 && fewest >= ALLOWED_BYTES; measurement++) {
            long before = threads.getThreadAllocatedBytes(worker.getId());
            round.run();
            fewest = Math.min(fewest, threads.getThreadAllocatedBytes(worker.getId()) - before);
        }
        return fewest;
    }

    private static Thread workerThread(WorkerGroupSettings group) {
        String name = group.threadNamePrefix() + group.name() + "-1";
        return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread named " + name + " among "
                        + Arrays.toString(Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toArray())));
    }
}

package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What the tests of a backend's port share: a port opened for each test, connections accepted by
 * a native listener with a JDK peer, bounded waits for notifications, and a check that the suite
 * leaves no descriptor open. A subclass names the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class PortTestSupport {

    /** The completion key {@link #register(long, int, Trigger)} registers with. */
    protected static final long KEY = 42;

    /** Long enough for loopback data to arrive, short enough to keep the suite fast. */
    protected static final long SETTLE_MILLIS = 150;

    /** The bound of every wait for something that must happen. */
    protected static final long WAIT_MILLIS = 5_000;

    private int descriptorsBefore;

    protected NativeSockets sockets;

    protected NotificationPort port;

    /** Native handles closed after each test; a test that closes one itself removes it. */
    protected final List<Long> handles = new ArrayList<>();

    private final List<AutoCloseable> peers = new ArrayList<>();

    /** @return the backend under test */
    protected abstract Backend backend();

    @BeforeAll
    void countDescriptors() throws IOException {
        OpenDescriptors.warmUpJdkSockets();
        this.descriptorsBefore = OpenDescriptors.count();
    }

    @AfterAll
    void noDescriptorIsLeftOpen() {
        assertThat(OpenDescriptors.count()).as("socket and port descriptors after the suite: %s",
                OpenDescriptors.networkDescriptors()).isEqualTo(this.descriptorsBefore);
    }

    @BeforeEach
    void openPort() throws Exception {
        this.sockets = backend().sockets();
        this.port = backend().openPort();
    }

    @AfterEach
    void closeEverything() throws Exception {
        this.port.close();
        for (long handle : this.handles) {
            try {
                this.sockets.close(handle);
            }
            catch (NativeIoException ex) {
                // closed by the test itself
            }
        }
        this.handles.clear();
        for (AutoCloseable peer : this.peers) {
            peer.close();
        }
        this.peers.clear();
    }

    /** Registers {@code handle} with {@link #KEY}, failing the test when the change is refused. */
    protected void register(long handle, int filter, Trigger trigger) throws NativeIoException {
        RegistrationBatch batch = new RegistrationBatch(1);
        batch.enable(handle, KEY, filter, trigger);
        this.port.apply(batch);
        if (batch.failed(0)) {
            throw batch.failure(0, "register");
        }
    }

    /** @return the events of the next notification for {@code key}, failing after {@link #WAIT_MILLIS} */
    protected int awaitEvents(long key) throws NativeIoException {
        NotificationBatch batch = new NotificationBatch(1);
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            if (this.port.dequeue(batch, 100) == 1 && batch.key(0) == key && !batch.isPosted(0)) {
                return batch.events(0);
            }
        }
        throw new AssertionError("No notification for key " + key + " within " + WAIT_MILLIS + " ms");
    }

    /** @return the events of every notification dequeued within {@code millis} */
    protected List<Integer> dequeueFor(long millis) throws NativeIoException {
        List<Integer> events = new ArrayList<>();
        collect(new NotificationBatch(8), millis, events);
        return events;
    }

    /** Adds the events of every notification dequeued within {@code millis} to {@code events}. */
    protected void collect(NotificationBatch batch, long millis, List<Integer> events) throws NativeIoException {
        long deadline = System.currentTimeMillis() + millis;
        long left;
        while ((left = deadline - System.currentTimeMillis()) > 0) {
            int count = this.port.dequeue(batch, left);
            for (int i = 0; i < count; i++) {
                events.add(batch.events(i));
            }
        }
    }

    /** @return what {@code handle} holds, read until it would block or the stream ends */
    protected String drain(long handle) throws NativeIoException {
        NativeBuffer buffer = this.sockets.allocate(1024);
        StringBuilder text = new StringBuilder();
        while (true) {
            buffer.buffer().clear();
            int read = this.sockets.recv(handle, buffer);
            if (read <= 0) {
                return text.toString();
            }
            text.append(new String(bytes(buffer), StandardCharsets.UTF_8));
        }
    }

    /** @return the bytes between a buffer's start and its position */
    protected static byte[] bytes(NativeBuffer buffer) {
        byte[] bytes = new byte[buffer.buffer().position()];
        buffer.buffer().flip().get(bytes);
        return bytes;
    }

    /** @return a connection accepted by a native listener, with its JDK peer; both closed after the test */
    protected Connection connect() throws IOException {
        long listener = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.sockets.listen(listener, 16);
            Socket peer = new Socket();
            this.peers.add(peer);
            peer.connect(this.sockets.localAddress(listener), (int) WAIT_MILLIS);
            peer.setTcpNoDelay(true);
            long deadline = System.currentTimeMillis() + WAIT_MILLIS;
            long handle;
            while ((handle = this.sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("accept found no connection");
                }
                Thread.onSpinWait();
            }
            this.handles.add(handle);
            return new Connection(handle, peer);
        }
        finally {
            this.sockets.close(listener);
        }
    }

    /**
     * A server-side socket and its peer: on a real backend a native socket accepted by a native
     * listener and the JDK client connected to it; a port in memory gives its own peer.
     */
    protected static class Connection {

        private final long handle;

        private final Socket peer;

        /**
         * @param handle the server-side socket
         * @param peer the JDK client, {@code null} for a peer in memory (which overrides what it does)
         */
        public Connection(long handle, Socket peer) {
            this.handle = handle;
            this.peer = peer;
        }

        /** @return the server-side socket's handle */
        public long handle() {
            return this.handle;
        }

        /** @return the JDK client, for what only a real peer does */
        public Socket peer() {
            return this.peer;
        }

        /** Sends {@code text} from the peer. */
        public void send(String text) throws IOException {
            OutputStream out = this.peer.getOutputStream();
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        /** The peer shuts its side: a FIN. */
        public void hangUp() throws IOException {
            this.peer.shutdownOutput();
        }

        /** The peer resets the connection: an RST. */
        public void reset() throws IOException {
            this.peer.setSoLinger(true, 0);
            this.peer.close();
        }
    }
}

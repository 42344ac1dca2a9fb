package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The contract every backend's port and sockets keep, written once and run against each backend on
 * real loopback sockets (epoll, the Winsock emulator, Windows). It holds the portable guarantees
 * stated in {@link NotificationPort}, the weaker of the backends' where they differ: an edge only
 * for a change after the registration was enabled, level-triggered notifications possibly stale,
 * REMOVE possibly joined with other events and preceded by queued ones. What a backend does beyond
 * them is tested in its own specifics tests. What one socket's registration is notified of, by
 * trigger and operation, is {@link PortSemanticsContract}'s, which the embedded harness's port runs
 * too; this adds what takes real sockets, many sockets or many threads. A subclass names the backend.
 */
public abstract class NotificationPortContract extends PortSemanticsContract {

    // ---- triggers ----------------------------------------------------------------------------

    @Test
    void edgeTriggeredOutRisesWhenAFullConnectionDrains() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.OUT, Trigger.EDGE_PERSISTENT);
        // Whether the enable on a writable socket notifies is not promised: fill the connection
        // until a send is refused at once, taking what was notified until then.
        NativeBuffer chunk = this.sockets.allocate(64 * 1024);
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (true) {
            dequeueFor(SETTLE_MILLIS);
            if (fillUntilWouldBlock(connection.handle(), chunk) == 0) {
                break;
            }
            assertThat(System.currentTimeMillis()).as("the connection fills up within %s ms", WAIT_MILLIS).isLessThan(deadline);
        }
        InputStream in = connection.peer().getInputStream();
        byte[] sink = new byte[64 * 1024];
        NotificationBatch batch = new NotificationBatch(1);
        while (true) {
            assertThat(System.currentTimeMillis()).as("OUT once the peer reads, within %s ms", WAIT_MILLIS).isLessThan(deadline + WAIT_MILLIS);
            int available = in.available();
            if (available > 0) {
                in.read(sink, 0, Math.min(available, sink.length));
            }
            if (this.port.dequeue(batch, 10) == 1) {
                assertThat(batch.key(0)).isEqualTo(KEY);
                assertThat(batch.events(0)).isEqualTo(Events.OUT);
                return;
            }
        }
    }

    // ---- operations ------------------------------------------------------------------------------

    @Test
    void closingASocketDeregistersItSilently() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN | Events.HANGUP, Trigger.LEVEL_PERSISTENT);
        this.sockets.close(connection.handle());
        this.handles.remove(connection.handle());
        connection.peer().close();
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no notification and no REMOVE").isEmpty();
        Connection next = connect();
        register(next.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        next.send("x");
        assertThat(awaitEvents(KEY)).as("a new socket, maybe with the same number, registers afresh").isEqualTo(Events.IN);
    }

    @Test
    void aBatchReportsAResultPerRegistrationAndStillDequeues() throws Exception {
        Connection good = connect();
        Connection unregistered = connect();
        long closed = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.close(closed);
        good.send("ping");
        RegistrationBatch changes = new RegistrationBatch(4);
        changes.enable(closed, 1, Events.IN, Trigger.LEVEL_ONESHOT);
        changes.enable(good.handle(), KEY, Events.IN, Trigger.LEVEL_ONESHOT);
        changes.remove(unregistered.handle(), 2);
        changes.disable(unregistered.handle(), 3);
        NotificationBatch notifications = new NotificationBatch(4);
        int count = this.port.process(changes, notifications, WAIT_MILLIS);
        // Which codes say so are the backend's own (see its specifics tests).
        assertThat(changes.failed(0)).as("a closed handle").isTrue();
        assertThat(changes.failed(1)).isFalse();
        assertThat(changes.failed(2)).as("REMOVE of a socket not registered").isTrue();
        assertThat(changes.failed(3)).as("DISABLE of a socket not registered").isTrue();
        assertThat(changes.failure(2, "test").getMessage()).contains("REMOVE", "key 2");
        assertThat(count).isEqualTo(1);
        assertThat(notifications.key(0)).isEqualTo(KEY);
        assertThat(notifications.events(0)).isEqualTo(Events.IN);
    }

    // ---- posted messages and closing ---------------------------------------------------------

    @Test
    void closingThePortWakesEveryWaiter() throws Exception {
        int waiters = 4;
        ExecutorService threads = Executors.newFixedThreadPool(waiters);
        CountDownLatch started = new CountDownLatch(waiters);
        List<Future<Throwable>> outcomes = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            outcomes.add(threads.submit(() -> {
                started.countDown();
                try {
                    this.port.dequeue(new NotificationBatch(4), NotificationPort.INFINITE);
                    return null;
                }
                catch (Throwable ex) {
                    return ex;
                }
            }));
        }
        started.await();
        Thread.sleep(SETTLE_MILLIS);
        this.port.close();
        for (Future<Throwable> outcome : outcomes) {
            assertThat(outcome.get(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isInstanceOf(PortClosedException.class);
        }
        threads.shutdown();
        assertThat(this.port.isOpen()).isFalse();
        assertThatThrownBy(() -> this.port.post(1, 1)).isInstanceOf(PortClosedException.class);
        assertThatThrownBy(() -> this.port.dequeue(new NotificationBatch(1), 0)).isInstanceOf(PortClosedException.class);
    }

    @Test
    void aPendingRemovalFailsWhenThePortCloses() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        var removal = this.port.deregister(connection.handle(), KEY);
        this.port.close();
        assertThat(removal).isCompletedExceptionally();
    }

    // ---- invalid input -------------------------------------------------------------------------

    @Test
    void invalidRegistrationsAreRefusedWithAClearMessage() {
        RegistrationBatch batch = new RegistrationBatch(1);
        assertThatIllegalArgumentException().isThrownBy(() -> batch.enable(1, 1, Events.IN, Trigger.LEVEL | Trigger.EDGE | Trigger.ONESHOT))
                .withMessageContaining("exactly one of LEVEL (0x4) and EDGE (0x8)");
        assertThatIllegalArgumentException().isThrownBy(() -> batch.enable(1, 1, Events.IN, Trigger.LEVEL))
                .withMessageContaining("ONESHOT (0x1) and PERSISTENT (0x2)");
        assertThatIllegalArgumentException().isThrownBy(() -> batch.enable(1, 1, Events.IN | Events.ERR, Trigger.LEVEL_ONESHOT))
                .withMessageContaining("IN|ERR");
        assertThatIllegalArgumentException().isThrownBy(() -> batch.enable(1, -5, Events.IN, Trigger.LEVEL_ONESHOT))
                .withMessageContaining("negative");
        batch.enable(1, 1, Events.IN, Trigger.EDGE_ONESHOT);
        assertThatThrownBy(() -> batch.remove(1, 1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("full");
        assertThatIllegalArgumentException().isThrownBy(() -> this.port.dequeue(new NotificationBatch(1), -7));
    }

    @Test
    void edgeOneShotIsAllowed() throws Exception {
        Connection connection = connect();
        RegistrationBatch batch = new RegistrationBatch(1);
        batch.enable(connection.handle(), KEY, Events.IN, Trigger.EDGE | Trigger.ONESHOT);
        this.port.apply(batch);
        assertThat(batch.failed(0)).isFalse();
    }

    @Test
    void aClosedPortRefusesEveryCall() {
        this.port.close();
        this.port.close();
        RegistrationBatch batch = new RegistrationBatch(1);
        batch.enable(1, 1, Events.IN, Trigger.LEVEL_ONESHOT);
        assertThatThrownBy(() -> this.port.apply(batch)).isInstanceOf(PortClosedException.class).hasMessageContaining("closed");
    }

    // ---- the reference's scenarios -----------------------------------------------------------

    @Test
    void manyThreadsWithOneShotLevelRegistrationsNeverHandleOneSocketTwiceAtOnce() throws Exception {
        int connections = 16;
        int messagesPerConnection = 50;
        int workers = 4;
        List<Connection> clients = new ArrayList<>();
        RegistrationBatch initial = new RegistrationBatch(connections);
        for (int i = 0; i < connections; i++) {
            Connection connection = connect();
            clients.add(connection);
            initial.enable(connection.handle(), i, Events.IN, Trigger.LEVEL_ONESHOT);
        }
        this.port.apply(initial);
        AtomicBoolean[] busy = new AtomicBoolean[connections];
        AtomicLong[] received = new AtomicLong[connections];
        for (int i = 0; i < connections; i++) {
            busy[i] = new AtomicBoolean();
            received[i] = new AtomicLong();
        }
        AtomicInteger overlaps = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(workers + connections);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            running.add(threads.submit(() -> {
                RegistrationBatch rearm = new RegistrationBatch(8);
                NotificationBatch batch = new NotificationBatch(8);
                NativeBuffer buffer = this.sockets.allocate(7);
                while (!stop.get()) {
                    int count = this.port.process(rearm, batch, 50);
                    rearm.clear();
                    for (int i = 0; i < count; i++) {
                        int index = (int) batch.key(i);
                        if (!busy[index].compareAndSet(false, true)) {
                            overlaps.incrementAndGet();
                        }
                        buffer.buffer().clear();
                        int read = this.sockets.recv(clients.get(index).handle(), buffer);
                        if (read > 0) {
                            received[index].addAndGet(read);
                        }
                        Thread.yield();
                        busy[index].set(false);
                        rearm.enable(clients.get(index).handle(), index, Events.IN, Trigger.LEVEL_ONESHOT);
                    }
                }
                return null;
            }));
        }
        List<Future<?>> senders = new ArrayList<>();
        for (Connection client : clients) {
            senders.add(threads.submit(() -> {
                for (int m = 0; m < messagesPerConnection; m++) {
                    client.send("message");
                }
                return null;
            }));
        }
        for (Future<?> sender : senders) {
            sender.get();
        }
        long expected = (long) messagesPerConnection * "message".length();
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline && !allReceived(received, expected)) {
            Thread.sleep(10);
        }
        stop.set(true);
        for (Future<?> worker : running) {
            worker.get();
        }
        threads.shutdown();
        assertThat(overlaps.get()).as("notifications handled by two threads at once").isZero();
        for (AtomicLong bytes : received) {
            assertThat(bytes.get()).isEqualTo(expected);
        }
    }

    @Test
    void edgeTriggeredUdpReceiverDrainsUntilWouldBlock() throws Exception {
        long server = this.sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        this.handles.add(server);
        // As the reference does: register before binding, so no datagram can arrive unnoticed.
        register(server, Events.IN, Trigger.EDGE_PERSISTENT);
        this.sockets.bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        InetSocketAddress address = (InetSocketAddress) this.sockets.localAddress(server);
        int datagrams = 10;
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            for (int i = 0; i < datagrams; i++) {
                byte[] payload = ("datagram " + i).getBytes(StandardCharsets.UTF_8);
                client.send(new DatagramPacket(payload, payload.length, address));
            }
            NotificationBatch batch = new NotificationBatch(1);
            NativeBuffer buffer = this.sockets.allocate(512);
            PeerAddress sender = PeerAddress.empty();
            List<String> received = new ArrayList<>();
            int wouldBlocks = 0;
            long deadline = System.currentTimeMillis() + WAIT_MILLIS;
            while (received.size() < datagrams && System.currentTimeMillis() < deadline) {
                if (this.port.dequeue(batch, 100) == 0 || (batch.events(0) & Events.IN) == 0) {
                    continue;
                }
                while (true) {
                    buffer.buffer().clear();
                    int length = this.sockets.receiveFrom(server, buffer, sender);
                    if (length == NativeSockets.WOULD_BLOCK) {
                        wouldBlocks++;
                        break;
                    }
                    received.add(new String(bytes(buffer), StandardCharsets.UTF_8));
                    assertThat(sender.toSocketAddress()).isEqualTo(client.getLocalSocketAddress());
                }
            }
            assertThat(received).hasSize(datagrams).contains("datagram 0", "datagram 9");
            assertThat(wouldBlocks).as("every notification drained to would-block").isPositive();
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------

    /** @return the bytes sent before a send would block */
    private long fillUntilWouldBlock(long handle, NativeBuffer chunk) throws NativeIoException {
        long sent = 0;
        while (true) {
            chunk.buffer().clear();
            int written = this.sockets.send(handle, chunk);
            if (written == NativeSockets.WOULD_BLOCK) {
                return sent;
            }
            sent += written;
        }
    }

    private static boolean allReceived(AtomicLong[] received, long expected) {
        for (AtomicLong bytes : received) {
            if (bytes.get() < expected) {
                return false;
            }
        }
        return true;
    }
}

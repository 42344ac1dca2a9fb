package dev.sockstate.port.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.port.PortTestSupport;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the nio backend does where the portable contract leaves room, and what it cannot do: its
 * emulated edges, its hang-up probe, its many-thread dequeue, and the JDK's limits it names.
 */
class NioSpecificsTest extends PortTestSupport {

    @Override
    protected Backend backend() {
        return new NioBackend();
    }

    @Test
    void isPortableAndChosenByNameOnly() {
        assertThat(backend().isNativeToThisSystem()).isFalse();
        assertThat(backend().edgeOnEveryArrival()).isFalse();
        assertThat(backend().notifiesErrors()).isFalse();
        assertThat(backend().appliesChangesWithDequeue()).isFalse();
        assertThat(backend().nativeBindings()).isEmpty();
        assertThat(backend().availability().available()).isTrue();
        assertThat(Backends.select("NIO").name()).isEqualTo("nio");
        assertThat(this.port.backendName()).isEqualTo("nio");
    }

    @Test
    void aSocketWhoseConnectWasPendingReadsAndWritesOnceConnectedWithoutAskingForItsError() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long client = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
            this.handles.add(client);
            boolean connectedAtOnce = this.sockets.connect(client, (InetSocketAddress) server.getLocalSocketAddress());
            try (Socket accepted = server.accept()) {
                accepted.getOutputStream().write('x');
                NativeBuffer buffer = this.sockets.allocate(8);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
                int read;
                while ((read = this.sockets.recv(client, buffer)) == NativeSockets.WOULD_BLOCK) {
                    assertThat(System.nanoTime()).as("a byte within %s ms (connected at once: %s)", WAIT_MILLIS, connectedAtOnce)
                            .isLessThan(deadline);
                    Thread.onSpinWait();
                }
                assertThat(read).isEqualTo(1);
                NativeBuffer reply = this.sockets.allocate(1);
                reply.buffer().put((byte) 'y').flip();
                assertThat(this.sockets.send(client, reply)).isEqualTo(1);
                assertThat(accepted.getInputStream().read()).isEqualTo('y');
            }
        }
    }

    @Test
    void aReadRegistrationMadeWhileConnectingHearsTheFirstDataWithoutSpinning() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long client = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
            this.handles.add(client);
            this.sockets.connect(client, (InetSocketAddress) server.getLocalSocketAddress());
            register(client, Events.IN, Trigger.LEVEL_ONESHOT);
            try (Socket accepted = server.accept()) {
                java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
                long cpuBefore = threads.getCurrentThreadCpuTime();
                assertThat(dequeueFor(300)).as("nothing to read yet").isEmpty();
                long spent = threads.getCurrentThreadCpuTime() - cpuBefore;
                assertThat(spent).as("CPU time of 300 ms of waiting, ns").isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
                accepted.getOutputStream().write('x');
                assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
                assertThat(drain(client)).isEqualTo("x");
            }
        }
    }

    @Test
    void aSocketOutlivesAPortThatClosedWithoutKeepingItOrBeingHeldByIt() throws Exception {
        long socket = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(socket);
        NotificationPort other = backend().openPort();
        RegistrationBatch enable = new RegistrationBatch(1);
        enable.enable(socket, KEY, Events.IN, Trigger.LEVEL_ONESHOT);
        other.apply(enable);
        assertThat(enable.failed(0)).isFalse();
        other.close();
        // The closed port's keys are gone: the socket is as if never registered, and may listen.
        this.sockets.bind(socket, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.listen(socket, 16);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) this.sockets.localAddress(socket)).getPort())) {
            register(socket, Events.IN, Trigger.LEVEL_ONESHOT);
            assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        }
    }

    @Test
    void aRemovedRegistrationWhoseSocketStaysOpenAndReadableCostsNoSpinningSelects() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        connection.send("unread");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        RegistrationBatch remove = new RegistrationBatch(1);
        remove.remove(connection.handle(), KEY);
        this.port.apply(remove);
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while ((awaitEvents(KEY) & Events.REMOVE) == 0) {
            assertThat(System.currentTimeMillis()).as("the REMOVE within %s ms", WAIT_MILLIS).isLessThan(deadline);
        }
        // The socket is still open, with its data unread: nothing may be notified, and waiting must cost no CPU.
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getCurrentThreadCpuTime();
        assertThat(dequeueFor(300)).isEmpty();
        assertThat(threads.getCurrentThreadCpuTime() - cpuBefore).as("CPU time of 300 ms of waiting, ns")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aOneShotRegistrationReArmedBeforeTheNextSelectChangesNoInterestAndMissesNothing() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        for (int i = 0; i < 200; i++) {
            connection.send("m");
            assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
            assertThat(drain(connection.handle())).isNotEmpty();
            register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        }
        assertThat(dequeueFor(SETTLE_MILLIS)).as("nothing left over").isEmpty();
    }

    @Test
    void anEmulatedEdgeWaitsForAWouldBlockBeforeNotifyingAgain() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        connection.send("two");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("unread data: no second edge (epoll would raise one)").isEmpty();
        NativeBuffer small = this.sockets.allocate(2);
        assertThat(this.sockets.recv(connection.handle(), small)).isEqualTo(2);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("a read short of would-block re-arms nothing").isEmpty();
        assertThat(drain(connection.handle())).isEqualTo("etwo");
        connection.send("three");
        assertThat(awaitEvents(KEY)).as("re-armed by the would-block").isEqualTo(Events.IN);
        assertThat(drain(connection.handle())).isEqualTo("three");
    }

    @Test
    void dataArrivingBetweenTheWouldBlockAndTheReArmIsNotLost() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        drain(connection.handle());
        connection.send("two");
        Thread.sleep(SETTLE_MILLIS);
        // The selector is level-triggered underneath: what is there when the side is re-armed is found.
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
    }

    @Test
    void anEnableReArmsAnEdgeThatWasNotDrained() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        assertThat(awaitEvents(KEY)).as("data already there when enabled may notify, and does here").isEqualTo(Events.IN);
    }

    @Test
    void aRegistrationThatAsksForInHearsTheFinAsInAndTheReadTellsIt() throws Exception {
        assertThat(backend().notifiesHangups()).isFalse();
        Connection connection = connect();
        register(connection.handle(), Events.IN | Events.HANGUP, Trigger.LEVEL_ONESHOT);
        connection.send("last words");
        connection.peer().shutdownOutput();
        assertThat(awaitEvents(KEY)).as("a FIN behind unread data is learnt by reading").isEqualTo(Events.IN);
        assertThat(drain(connection.handle())).isEqualTo("last words");
        register(connection.handle(), Events.IN | Events.HANGUP, Trigger.LEVEL_ONESHOT);
        assertThat(awaitEvents(KEY)).as("nothing left but the FIN: still IN, no probe a notification").isEqualTo(Events.IN);
        assertThat(this.sockets.recv(connection.handle(), this.sockets.allocate(8))).as("end of stream").isZero();
    }

    @Test
    void aHangupOnlyRegistrationIgnoresDataWithoutSpinningAndHearsNothingOfAClose() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.HANGUP, Trigger.LEVEL_PERSISTENT);
        connection.send("held");
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getCurrentThreadCpuTime();
        assertThat(dequeueFor(300)).as("data is not what a HANGUP filter asks for").isEmpty();
        assertThat(threads.getCurrentThreadCpuTime() - cpuBefore).as("CPU time of 300 ms of waiting, ns")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
        register(connection.handle(), Events.IN | Events.HANGUP, Trigger.LEVEL_ONESHOT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(drain(connection.handle())).isEqualTo("held");
        register(connection.handle(), Events.HANGUP, Trigger.LEVEL_ONESHOT);
        connection.peer().close();
        // What a selector found may be stale when handed out, so no probe tells a FIN from data: the
        // read after the next enable for IN does.
        assertThat(dequeueFor(SETTLE_MILLIS)).as("nothing for HANGUP alone").isEmpty();
        register(connection.handle(), Events.IN | Events.HANGUP, Trigger.LEVEL_ONESHOT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(this.sockets.recv(connection.handle(), this.sockets.allocate(8))).as("end of stream").isZero();
    }

    @Test
    void waitingThreadsTakeTheBatchTheSelectingThreadFoundEachEntryOnce() throws Exception {
        int threads = 4;
        int messages = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        ConcurrentHashMap<Long, Integer> received = new ConcurrentHashMap<>();
        AtomicInteger total = new AtomicInteger();
        List<Future<Integer>> takers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            takers.add(pool.submit(() -> {
                NotificationBatch batch = new NotificationBatch(3);
                int mine = 0;
                while (total.get() < messages) {
                    int count = this.port.dequeue(batch, 20);
                    for (int i = 0; i < count; i++) {
                        received.merge(batch.key(i), 1, Integer::sum);
                        total.incrementAndGet();
                        mine++;
                    }
                }
                return mine;
            }));
        }
        for (int i = 0; i < messages; i++) {
            this.port.post(i, i);
        }
        int sum = 0;
        for (Future<Integer> taker : takers) {
            sum += taker.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
        pool.shutdown();
        assertThat(sum).isEqualTo(messages);
        assertThat(received).hasSize(messages).allSatisfy((key, times) -> assertThat(times).isEqualTo(1));
    }

    @Test
    void aStreamOfPostedMessagesDoesNotHideASocketThatBecameReady() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        this.port.post(1, 1);
        connection.send("x");
        Thread.sleep(SETTLE_MILLIS);
        NotificationBatch batch = new NotificationBatch(1);
        for (int i = 0; i < 100; i++) {
            // Something is always queued, as when the engine yields turns through the port.
            this.port.post(1, 1);
            assertThat(this.port.dequeue(batch, 0)).isEqualTo(1);
            if (!batch.isPosted(0)) {
                assertThat(batch.key(0)).isEqualTo(KEY);
                assertThat(batch.events(0)).isEqualTo(Events.IN);
                return;
            }
        }
        throw new AssertionError("The socket's IN never came through 100 dequeues while messages were posted");
    }

    @Test
    void aUdpSocketReadBeforeItsBindWouldBlockAndStillBinds() throws Exception {
        long udp = this.sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        this.handles.add(udp);
        register(udp, Events.IN, Trigger.EDGE_PERSISTENT);
        assertThat(this.sockets.receiveFrom(udp, this.sockets.allocate(16), dev.sockstate.port.PeerAddress.empty()))
                .as("as recvfrom on an unbound socket; the JDK's receive would bind it").isEqualTo(NativeSockets.WOULD_BLOCK);
        this.sockets.bind(udp, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        assertThat(((InetSocketAddress) this.sockets.localAddress(udp)).getPort()).isPositive();
    }

    @Test
    void aReArmFromAnotherThreadWakesTheSelectUnderWay() throws Exception {
        Connection connection = connect();
        connection.send("waiting");
        RegistrationBatch disarmed = new RegistrationBatch(1);
        disarmed.disable(connection.handle(), KEY);
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        this.port.apply(disarmed);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Integer> waiter = pool.submit(() -> {
            NotificationBatch batch = new NotificationBatch(1);
            return (this.port.dequeue(batch, NotificationPort.INFINITE) == 1) ? batch.events(0) : 0;
        });
        Thread.sleep(SETTLE_MILLIS);
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        assertThat(waiter.get(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isEqualTo(Events.IN);
        pool.shutdown();
    }

    @Test
    void closingARemovedSocketReleasesItsDescriptorAtOnceWithTheThreadsInThePortOrNot() throws Exception {
        int before = OpenDescriptors.count();
        for (boolean threadWaiting : new boolean[] { false, true }) {
            Connection connection = connect();
            register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
            RegistrationBatch remove = new RegistrationBatch(1);
            remove.remove(connection.handle(), KEY);
            this.port.apply(remove);
            assertThat(awaitEvents(KEY)).isEqualTo(Events.REMOVE);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<Integer> waiter = threadWaiting ? pool.submit(() -> this.port.dequeue(new NotificationBatch(1), 2 * WAIT_MILLIS)) : null;
            Thread.sleep(50);
            this.sockets.close(connection.handle());
            this.handles.remove(connection.handle());
            InputStream in = connection.peer().getInputStream();
            connection.peer().setSoTimeout((int) WAIT_MILLIS);
            assertThat(in.read()).as("the peer sees the close").isEqualTo(-1);
            connection.peer().close();
            long deadline = System.currentTimeMillis() + WAIT_MILLIS;
            while (OpenDescriptors.count() > before && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertThat(OpenDescriptors.count()).as("descriptors once the socket is closed (thread waiting: %s)", threadWaiting)
                    .isEqualTo(before);
            if (waiter != null) {
                this.port.post(1, 1);
                assertThat(waiter.get(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isEqualTo(1);
            }
            pool.shutdown();
        }
    }

    @Test
    void anInterruptNeitherEndsAWaitNorClosesASocketAndIsKept() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        try {
            assertThat(this.port.dequeue(new NotificationBatch(1), SETTLE_MILLIS)).isZero();
            assertThat(System.nanoTime() - start).as("waited its time").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS - 10));
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
            assertThat(this.sockets.recv(connection.handle(), this.sockets.allocate(8))).isEqualTo(NativeSockets.WOULD_BLOCK);
        }
        finally {
            Thread.interrupted();
        }
        connection.send("still open");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
    }

    @Test
    void aClosedHandleNamesNothingEvenOnceItsSlotIsReused() throws Exception {
        long first = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.close(first);
        long second = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(second);
        assertThat(second).isNotEqualTo(first).isPositive();
        assertThat((int) second).as("the same slot").isEqualTo((int) first);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.close(first))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.BAD_DESCRIPTOR));
    }

    @Test
    void optionsALIsteningChannelLacksAreSetOnTheSocketsItAccepts() throws Exception {
        long listener = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(listener);
        this.sockets.setOption(listener, NativeSocketOption.TCP_NODELAY, 1);
        this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.setOption(listener, NativeSocketOption.KEEP_ALIVE, 1);
        this.sockets.listen(listener, 4);
        assertThat(this.sockets.getOption(listener, NativeSocketOption.TCP_NODELAY)).isEqualTo(1);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) this.sockets.localAddress(listener)).getPort())) {
            long accepted;
            long deadline = System.currentTimeMillis() + WAIT_MILLIS;
            while ((accepted = this.sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(1);
            }
            this.handles.add(accepted);
            assertThat(this.sockets.getOption(accepted, NativeSocketOption.TCP_NODELAY)).isEqualTo(1);
            assertThat(this.sockets.getOption(accepted, NativeSocketOption.KEEP_ALIVE)).isEqualTo(1);
        }
    }

    @Test
    void whatTheJdkCannotDoIsRefusedByName() throws Exception {
        long v6 = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET6);
        this.handles.add(v6);
        this.sockets.setOption(v6, NativeSocketOption.IPV6_ONLY, 0);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.setOption(v6, NativeSocketOption.IPV6_ONLY, 1))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED))
                .withMessageContaining("IPV6_ONLY").withMessageContaining("dual-stack");
        long bound = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(bound);
        this.sockets.bind(bound, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        assertThatExceptionOfType(NativeIoException.class)
                .isThrownBy(() -> this.sockets.connect(bound, new InetSocketAddress(InetAddress.getLoopbackAddress(), 9)))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.INVALID_ARGUMENT))
                .withMessageContaining("connect a socket that was not bound");
        long registered = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(registered);
        register(registered, Events.IN, Trigger.LEVEL_ONESHOT);
        assertThatExceptionOfType(NativeIoException.class)
                .isThrownBy(() -> this.sockets.bind(registered, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
                .withMessageContaining("register it after listen");
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Operation;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.ReceiveMode;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Receive per worker: a UDP socket on each worker's port, bound with SO_REUSEPORT to one address;
 * the kernel spreads the datagrams over them by sender, so several workers receive one port's
 * datagrams, and each sender's keep to one worker, in order. Windows (the emulator) has no
 * SO_REUSEPORT: one socket receives, as with receive shared.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ReceivePerWorkerTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    private static ListenerSettings.Builder perWorker(String name) {
        return ServerFixture.udp(name).receive(ReceiveMode.PER_WORKER);
    }

    /** Answers each datagram with itself, and records the threads that received each sender's datagrams, in order. */
    private static final class ThreadRecordingEcho implements DatagramHandler {

        final Map<SocketAddress, Set<String>> threads = new ConcurrentHashMap<>();

        final Map<SocketAddress, List<Integer>> order = new ConcurrentHashMap<>();

        /** @return the threads that received any sender's datagrams */
        Set<String> workers() {
            Set<String> workers = ConcurrentHashMap.newKeySet();
            this.threads.values().forEach(workers::addAll);
            return workers;
        }

        @Override
        public void onDatagram(dev.sockstate.server.DatagramEndpoint endpoint, ByteBuffer data, dev.sockstate.port.PeerAddress sender) {
            SocketAddress from = sender.toSocketAddress();
            this.threads.computeIfAbsent(from, (key) -> ConcurrentHashMap.newKeySet()).add(Thread.currentThread().getName());
            this.order.computeIfAbsent(from, (key) -> java.util.Collections.synchronizedList(new ArrayList<>()))
                    .add(Integer.parseInt(StandardCharsets.UTF_8.decode(data.duplicate()).toString()));
            endpoint.send(data, sender);
        }
    }

    /** One round trip from each of that many senders, each a socket of its own, opened and closed in turn. */
    private static void roundTripsFromNewSenders(SocketAddress target, int senders) throws IOException {
        for (int c = 0; c < senders; c++) {
            try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                client.setSoTimeout(5000);
                roundTrip(client, target, c);
            }
        }
    }

    private static void roundTrip(DatagramSocket client, SocketAddress target, int value) throws IOException {
        byte[] text = Integer.toString(value).getBytes(StandardCharsets.UTF_8);
        client.send(new DatagramPacket(text, text.length, target));
        DatagramPacket reply = new DatagramPacket(new byte[64], 64);
        client.receive(reply);
        assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(value));
    }

    @Test
    void everyWorkerReceivesFromItsOwnSocketOnOneEphemeralPortAndEachSendersDatagramsKeepToOneWorkerInOrder() throws Exception {
        assumeTrue(AcceptPerWorkerTest.spreads(), "the backend spreads datagrams over sockets sharing a port");
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(AcceptPerWorkerTest.portPerWorker(4), perWorker("echo").portNumber(0).handler(handler).build());
        assertThat(server.ownSockets("echo")).as("UDP sockets").isEqualTo(4);
        BoundListener bound = server.listener("echo");
        assertThat(bound.portNumber()).as("the port the first socket got, shared by the others").isPositive();
        assertThat(bound.registrations()).as("a registration per worker's socket").isEqualTo(4);
        SocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.portNumber());
        List<DatagramSocket> clients = new ArrayList<>();
        try {
            for (int c = 0; c < 64; c++) {
                DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                client.setSoTimeout(5000);
                clients.add(client);
            }
            for (int round = 0; round < 5; round++) {
                for (DatagramSocket client : clients) {
                    roundTrip(client, target, round);
                }
            }
        }
        finally {
            clients.forEach(DatagramSocket::close);
        }
        assertThat(handler.threads).as("senders heard").hasSize(64);
        handler.threads.forEach((sender, threads) -> assertThat(threads).as("workers receiving from %s", sender).hasSize(1));
        handler.order.forEach((sender, values) -> assertThat(values).as("datagrams of %s", sender).containsExactly(0, 1, 2, 3, 4));
        assertThat(handler.workers()).as("workers that received datagrams (64 senders over 4 sockets)").hasSize(4);
        assertThat(server.listener("echo").serving()).isTrue();
    }

    @Test
    void aFixedPortIsSharedByEveryWorkersSocketTheSameWay() throws Exception {
        assumeTrue(AcceptPerWorkerTest.spreads(), "the backend spreads datagrams over sockets sharing a port");
        int port;
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = probe.getLocalPort();
        }
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(AcceptPerWorkerTest.portPerWorker(2), perWorker("echo").portNumber(port).handler(handler).build());
        assertThat(server.listener("echo").portNumber()).isEqualTo(port);
        assertThat(server.ownSockets("echo")).isEqualTo(2);
        SocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        roundTripsFromNewSenders(target, 32);
        Set<String> workers = handler.workers();
        assertThat(workers).as("workers that received datagrams").hasSize(2);
    }

    @Test
    void onWindowsOneSocketReceivesForEveryWorkerAsWithReceiveShared() throws Exception {
        assumeTrue(!AcceptPerWorkerTest.spreads(), "a backend without SO_REUSEPORT (winsock)");
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(AcceptPerWorkerTest.portPerWorker(3), perWorker("echo").handler(handler).build());
        assertThat(server.ownSockets("echo")).as("UDP sockets").isEqualTo(1);
        SocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber());
        roundTripsFromNewSenders(target, 9);
        Set<String> workers = handler.workers();
        assertThat(workers).as("the one receiving worker").hasSize(1);
    }

    @Test
    void aBindThatFailsPartWayNamesTheListenerAndClosesEverySocketOpenedAndRegistered() throws Exception {
        assumeTrue(AcceptPerWorkerTest.spreads(), "the backend spreads datagrams over sockets sharing a port");
        OpenDescriptors.warmUpJdkSockets();
        int descriptors = OpenDescriptors.count();
        AtomicInteger binds = new AtomicInteger();
        // The third socket, registered already, loses SO_REUSEPORT and SO_REUSEADDR (either lets UDP sockets share a
        // port) before it binds: the kernel refuses it the port.
        Backend thirdBindRefused = AcceptPerWorkerFailureTest.withSockets(ServerFixture.backend(), (real, method, arguments) -> {
            if (method.equals("bind") && binds.incrementAndGet() == 3) {
                real.setOption((Long) arguments[0], NativeSocketOption.REUSE_PORT, 0);
                real.setOption((Long) arguments[0], NativeSocketOption.REUSE_ADDRESS, 0);
            }
        });
        SocketServer server = new SocketServer(thirdBindRefused, AcceptPerWorkerTest.portPerWorker(4),
                List.of(perWorker("echo").handler((endpoint, data, sender) -> { }).build()), ServerObserver.NONE);
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(server::start)
                .withMessageStartingWith("Listener 'echo' could not bind to 127.0.0.1 port ")
                .satisfies((ex) -> assertThat(((NativeIoException) ex.getCause()).error()).isEqualTo(NativeError.ADDRESS_IN_USE));
        assertThat(binds.get()).as("binds tried").isEqualTo(3);
        assertThat(server.isRunning()).isFalse();
        assertThat(OpenDescriptors.count()).as("descriptors: %s", OpenDescriptors.networkDescriptors()).isEqualTo(descriptors);
        assertThat(LifecycleTest.sockstateThreads()).isEmpty();
    }

    @Test
    void aListenerAddedAtRunTimeArmsNoSocketBeforeItIsBoundSoOneWhoseArmingIsRefusedLeavesItServingOnTheOthers()
            throws Exception {
        assumeTrue(AcceptPerWorkerTest.spreads(), "the backend spreads datagrams over sockets sharing a port");
        // Once the listener is added, the ports refuse the first socket's arming (as epoll_ctl does past max_user_watches),
        // which closes that socket; a socket armed before its bind would be closed while the bind still used its number.
        AtomicLong refused = new AtomicLong(-1);
        AtomicInteger closes = new AtomicInteger();
        AtomicBoolean adding = new AtomicBoolean();
        RefusingBackend refusing = new RefusingBackend(ServerFixture.backend(), (operation, socket, key) -> adding.get()
                && operation == Operation.ENABLE && (refused.compareAndSet(-1, socket) || refused.get() == socket));
        CountDownLatch refusedClosed = new CountDownLatch(1);
        Backend backend = AcceptPerWorkerFailureTest.withSockets(refusing, (real, method, arguments) -> {
            if (method.equals("bind") && adding.get()) {
                // Gives a socket armed before it is bound the time to be refused and closed before its bind.
                try {
                    refusedClosed.await(300, TimeUnit.MILLISECONDS);
                }
                catch (InterruptedException ex) {
                    throw new AssertionError(ex);
                }
            }
            else if (method.equals("close") && arguments[0] instanceof Long handle && handle == refused.get()) {
                closes.incrementAndGet();
                refusedClosed.countDown();
            }
        });
        AtomicInteger stoppedServing = new AtomicInteger();
        ServerObserver observer = new ServerObserver() {
            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ServerObserver.ActiveCounts active) {
                return new ListenerObserver() {
                    @Override
                    public void stoppedServing() {
                        stoppedServing.incrementAndGet();
                    }
                };
            }
        };
        SocketServer server = this.fixture.start(backend, AcceptPerWorkerTest.portPerWorker(2), observer);
        int descriptors = OpenDescriptors.count();
        adding.set(true);
        assertThat(server.addListener(perWorker("echo").trigger(Trigger.LEVEL_ONESHOT).handler(new ThreadRecordingEcho()).build()))
                .isNotNull();
        assertThat(refusedClosed.await(10, TimeUnit.SECONDS)).as("the refused socket closed").isTrue();
        assertThat(refusing.refusals.get()).as("armings refused").isPositive();
        assertThat(stoppedServing.get()).as("stops the observer heard").isZero();
        assertThat(server.listener("echo").serving()).as("serving on the other socket").isTrue();
        roundTripsFromNewSenders(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber()), 8);
        assertThat(closes.get()).as("closes of the refused socket").isEqualTo(1);
        assertThat(OpenDescriptors.count()).as("descriptors: %s", OpenDescriptors.networkDescriptors()).isEqualTo(descriptors + 1);
    }

    @Test
    void aGroupWhoseWorkersShareOnePortIsRefusedNamingTheListenerAndTheGroup() {
        List<WorkerGroupSettings> shared = List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2).withPortPerWorker(false));
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> this.fixture.start(shared, perWorker("echo").handler((endpoint, data, sender) -> { })
                        .trigger(dev.sockstate.port.Trigger.LEVEL_ONESHOT).build()))
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.RECEIVE))
                .withMessageContaining("'echo'").withMessageContaining("'default'").withMessageContaining("share one port");
    }

    @Test
    void aTcpListenerAUnixSocketAndMulticastAreRefusedAsTheyAreBuilt() throws Exception {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ServerFixture.tcp("echo").receive(ReceiveMode.PER_WORKER).handler(new dev.sockstate.server.ConnectionHandler() {
                    @Override
                    public void onData(dev.sockstate.server.Connection connection, ByteBuffer data) {
                    }
                }).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.RECEIVE)).withMessageContaining("accept PER_WORKER");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.udp("log").unixPath(Path.of("/tmp/sockstate-receive-per-worker.sock"))
                        .receive(ReceiveMode.PER_WORKER).handler((endpoint, data, sender) -> { }).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.RECEIVE)).withMessageContaining("Unix domain socket");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> perWorker("ticks").multicast(Multicast.NONE.join(new Multicast.Group(InetAddress.getByName("239.1.2.3"), null)))
                        .handler((endpoint, data, sender) -> { }).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.RECEIVE)).withMessageContaining("every socket bound to the port");
    }
}

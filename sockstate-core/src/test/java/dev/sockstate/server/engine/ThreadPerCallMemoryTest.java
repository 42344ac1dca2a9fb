package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Operation;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Handler calls each on a thread of its own, as a virtual-thread executor runs them (virtual threads
 * where the JDK has them, a new platform thread per task on Java 17): the native memory the runtime uses
 * per thread is reused from threads that ended, not allocated again for every call. Measured as the
 * most direct memory in use ({@code BufferPoolMXBean} "direct") over the run.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreadPerCallMemoryTest {

    private static final long BOUND = 1024 * 1024;

    /** Writes back a heap copy of each message: the write goes through the thread's native copy of it. */
    private static final ConnectionHandler ECHO = (connection, data) -> {
        byte[] copy = new byte[data.remaining()];
        data.get(copy);
        connection.write(ByteBuffer.wrap(copy));
    };

    /** More threads than the runtime lends memory to at once. */
    private static final int HELD = 64;

    private final ServerFixture fixture = new ServerFixture();

    private final Executor threadPerTask = threadPerTask();

    private final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter((pool) -> pool.getName().equals("direct")).findFirst().orElseThrow();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    /** A virtual thread per task where the JDK has them (21 and later), else a platform thread per task. */
    private static Executor threadPerTask() {
        try {
            return (Executor) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        }
        catch (ReflectiveOperationException ex) {
            return (task) -> new Thread(task, "handler").start();
        }
    }

    @Test
    void twentyThousandTcpCallsEachOnANewThreadKeepDirectMemoryBounded() throws Exception {
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").handlerExecutor(this.threadPerTask).handler(ECHO).build());
        Socket client = this.fixture.connect(server, "echo");
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        long before = this.direct.getMemoryUsed();
        long most = before;
        byte[] message = new byte[100];
        for (int i = 0; i < 20_000; i++) {
            out.write(message);
            assertThat(in.readNBytes(message.length)).hasSize(message.length);
            most = Math.max(most, this.direct.getMemoryUsed());
        }
        assertThat(most - before).as("direct memory grown at most over 20,000 calls").isLessThan(BOUND);
    }

    /**
     * Counted, not only summed: a native call's captured errno is a few bytes, which a bound in bytes
     * would not see made for each thread, but each is a segment of native memory allocated and freed.
     */
    @Test
    void fiveThousandTcpCallsEachOnANewThreadMakeNoNativeSegmentEach() throws Exception {
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").handlerExecutor(this.threadPerTask).handler(ECHO).build());
        Socket client = this.fixture.connect(server, "echo");
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        byte[] message = new byte[100];
        for (int i = 0; i < 200; i++) {
            out.write(message);
            in.readNBytes(message.length);
        }
        long before = this.direct.getCount();
        long most = before;
        for (int i = 0; i < 5_000; i++) {
            out.write(message);
            assertThat(in.readNBytes(message.length)).hasSize(message.length);
            most = Math.max(most, this.direct.getCount());
        }
        assertThat(most - before).as("direct buffers and native segments made at most over 5,000 calls").isLessThan(200);
    }

    @Test
    void fiveThousandDatagramsEachHandledOnANewThreadKeepDirectMemoryBounded() throws Exception {
        DatagramHandler reply = (endpoint, data, sender) -> endpoint.send(data, sender);
        SocketServer server = this.fixture.start(2, ServerFixture.udp("udp").handlerExecutor(this.threadPerTask).handler(reply).build());
        InetSocketAddress target = new InetSocketAddress(((InetSocketAddress) server.listener("udp").address()).getAddress(),
                server.listener("udp").portNumber());
        try (DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout(5000);
            byte[] datagram = new byte[100];
            DatagramPacket answer = new DatagramPacket(new byte[200], 200);
            // The listener's socket takes its receive batch with its first datagram, once: what grows after is the calls'.
            client.send(new DatagramPacket(datagram, datagram.length, target));
            client.receive(answer);
            long before = this.direct.getMemoryUsed();
            long most = before;
            for (int i = 0; i < 5_000; i++) {
                client.send(new DatagramPacket(datagram, datagram.length, target));
                client.receive(answer);
                most = Math.max(most, this.direct.getMemoryUsed());
            }
            assertThat(most - before).as("direct memory grown at most over 5,000 datagrams").isLessThan(BOUND);
        }
    }

    @Test
    void callsOnMoreThreadsAtOnceThanTheRuntimeLendsMemoryToAllocateNoneOfTheirOwn() throws Exception {
        // The first connections' executor threads are held while letting go of their socket (while the
        // re-arm is reported): they hold all the memory lent for letting go, and later threads find none.
        CountDownLatch held = new CountDownLatch(HELD);
        CountDownLatch resume = new CountDownLatch(1);
        ServerObserver holdLettingGo = holdingLettingGo(held, resume);
        Executor threadPerTask = (task) -> startThread("handler", task);
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").handlerExecutor(threadPerTask).handler(ECHO).build()), holdLettingGo);
        server.start();
        try {
            List<Socket> heldClients = connectHeld(server, held);
            Socket client = this.fixture.connect(server, "echo");
            OutputStream out = client.getOutputStream();
            InputStream in = client.getInputStream();
            byte[] message = new byte[100];
            long before = this.direct.getMemoryUsed();
            long most = before;
            for (int i = 0; i < 2_000; i++) {
                out.write(message);
                assertThat(in.readNBytes(message.length)).as("echo %d while %d threads are held", i, HELD).hasSize(message.length);
                most = Math.max(most, this.direct.getMemoryUsed());
            }
            assertThat(most - before).as("direct memory grown at most over 2,000 calls beside %d held threads", HELD).isLessThan(BOUND);
            resume.countDown();
            for (Socket heldClient : heldClients) {
                heldClient.getOutputStream().write(message);
                assertThat(heldClient.getInputStream().readNBytes(message.length)).as("echo once let go").hasSize(message.length);
            }
        }
        finally {
            resume.countDown();
            server.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void aReplyRefusedForWantOfBuffersByAThreadLentNoMemoryIsSentWhenItsRetryIsDue() throws Exception {
        // The thread of the call lets go without memory to re-arm with, so a worker re-arms for it. The
        // handler works on after its reply was refused, past the retry's pause: the retry's run request
        // comes while that thread still owns the connection, and must not be lost in the worker's re-arm.
        CountDownLatch held = new CountDownLatch(HELD);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicBoolean refuseNextSend = new AtomicBoolean();
        Backend real = ServerFixture.backend();
        NativeSockets sockets = real.sockets();
        NativeSockets refusing = (NativeSockets) Proxy.newProxyInstance(NativeSockets.class.getClassLoader(),
                new Class<?>[] {NativeSockets.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("send") && refuseNextSend.compareAndSet(true, false)) {
                        throw new NativeIoException("send", NativeError.NO_MEMORY, 105, "No buffer space available");
                    }
                    try {
                        return method.invoke(sockets, arguments);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
        Backend backend = new ForwardingBackend(real) {
            @Override
            public NativeSockets sockets() {
                return refusing;
            }
        };
        ConnectionHandler echoThenWork = (connection, data) -> {
            ECHO.onData(connection, data);
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        SocketServer server = new SocketServer(backend, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").handlerExecutor((task) -> startThread("handler", task)).handler(echoThenWork).build()),
                holdingLettingGo(held, resume));
        server.start();
        try {
            connectHeld(server, held);
            Socket client = this.fixture.connect(server, "echo");
            client.setSoTimeout(5_000);
            byte[] message = new byte[100];
            for (int i = 0; i < 10; i++) {
                refuseNextSend.set(i % 2 == 0);
                client.getOutputStream().write(message);
                assertThat(client.getInputStream().readNBytes(message.length)).as("echo %d, its send refused once: %s", i, i % 2 == 0)
                        .hasSize(message.length);
            }
        }
        finally {
            resume.countDown();
            server.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void aConnectionThatADrainLeftOwingNothingClosesOnItsWorkerWhenItsCallThreadsAreLentNoMemory() throws Exception {
        // The drain's read runs on a thread of the executor lent no memory, which cannot close the
        // connection: the worker that re-arms for it must close it, not hand it back to the executor.
        CountDownLatch held = new CountDownLatch(HELD);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicInteger tasks = new AtomicInteger();
        Executor counting = (task) -> {
            tasks.incrementAndGet();
            startThread("handler", task);
        };
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").handlerExecutor(counting).handler(ECHO).build()), holdingLettingGo(held, resume));
        server.start();
        Thread stopping = null;
        try {
            connectHeld(server, held);
            Socket late = this.fixture.connect(server, "echo");
            late.getOutputStream().write(new byte[] { 1, 2, 3 });
            assertThat(late.getInputStream().readNBytes(3)).as("served on threads lent no memory").containsExactly(1, 2, 3);
            int before = tasks.get();
            stopping = new Thread(() -> server.stop(Duration.ofSeconds(5)));
            stopping.start();
            // It owes nothing: the stop ends it with a FIN long before the stop's timeout.
            late.setSoTimeout(3000);
            assertThat(late.getInputStream().read()).as("the end of the stream").isEqualTo(-1);
            late.close();
            assertThat(tasks.get() - before).as("executor tasks the connection's stop took").isLessThan(10);
        }
        finally {
            resume.countDown();
            if (stopping != null) {
                stopping.join(10_000);
            }
            else {
                server.stop(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void aThreadLentNoMemoryThatLetsGoAfterTheStopClosedThePortsStillFinishesItsConnection() throws Exception {
        CountDownLatch held = new CountDownLatch(HELD);
        CountDownLatch resume = new CountDownLatch(1);
        ServerObserver holdLettingGo = holdingLettingGo(held, resume);
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch callEnds = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        ConnectionHandler slow = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                inCall.countDown();
                awaitQuietly(callEnds);
            }

            @Override
            public void onClose(Connection connection) {
                closed.countDown();
            }
        };
        Executor threadPerTask = (task) -> startThread("handler", task);
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("slow").handlerExecutor(threadPerTask).handler(slow).build()), holdLettingGo);
        server.start();
        try {
            for (int i = 0; i < HELD; i++) {
                this.fixture.connect(server, "slow");
            }
            assertThat(held.await(10, TimeUnit.SECONDS)).as("%d threads held letting go", HELD).isTrue();
            Socket late = this.fixture.connect(server, "slow");
            late.getOutputStream().write(new byte[] { 1 });
            assertThat(inCall.await(10, TimeUnit.SECONDS)).isTrue();
            // The stop times out on the call, aborts and closes the ports; then the call ends, and its
            // thread, lent no memory, lets go of the connection.
            server.stop(Duration.ofMillis(300));
            callEnds.countDown();
            assertThat(closed.await(10, TimeUnit.SECONDS)).as("onClose of the connection let go after the ports closed").isTrue();
        }
        finally {
            callEnds.countDown();
            resume.countDown();
        }
    }

    /** @return {@link #HELD} clients of the "echo" listener, once each one's call thread is held letting go */
    private List<Socket> connectHeld(SocketServer server, CountDownLatch held) throws Exception {
        List<Socket> clients = new ArrayList<>();
        for (int i = 0; i < HELD; i++) {
            clients.add(this.fixture.connect(server, "echo"));
        }
        assertThat(held.await(10, TimeUnit.SECONDS)).as("%d threads held letting go", HELD).isTrue();
        return clients;
    }

    /**
     * Holds the first {@value #HELD} executor threads (named "handler") that re-arm a connection while
     * letting go of it, until resumed: they keep the memory lent for letting go meanwhile.
     */
    private static ServerObserver holdingLettingGo(CountDownLatch held, CountDownLatch resume) {
        AtomicInteger holds = new AtomicInteger();
        return new ServerObserver() {
            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return new ListenerObserver() {
                    @Override
                    public void registrationChanged(Operation operation, boolean success) {
                        if (Thread.currentThread().getName().equals("handler") && operation == Operation.ENABLE
                                && holds.getAndIncrement() < HELD) {
                            held.countDown();
                            awaitQuietly(resume);
                        }
                    }
                };
            }
        };
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** A virtual thread where the JDK has them, else a platform thread. */
    private static void startThread(String name, Runnable task) {
        try {
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = builderType.getMethod("name", String.class).invoke(builder, name);
            builderType.getMethod("start", Runnable.class).invoke(builder, task);
        }
        catch (ReflectiveOperationException ex) {
            new Thread(task, name).start();
        }
    }
}

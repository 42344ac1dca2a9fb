package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * TCP_NODELAY on accepted connections, on the real backend: set once on the listener, which accepted
 * sockets inherit, and on each connection only where the first accepted one shows they do not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpNoDelayTest {

    private static final int CLIENTS = 5;

    private final RecordingBackend backend = new RecordingBackend(ServerFixture.backend());

    private final Queue<Long> opened = new ConcurrentLinkedQueue<>();

    private final List<Socket> clients = new ArrayList<>();

    private SocketServer server;

    @AfterEach
    void stop() throws IOException {
        for (Socket client : this.clients) {
            client.close();
        }
        if (this.server != null) {
            this.server.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, disabledReason = "Linux's accepted sockets inherit TCP_NODELAY; elsewhere the fallback applies")
    void acceptedConnectionsHaveNagleOffFromTheListenerWithoutASystemCallOfTheirOwn() throws Exception {
        serveAndConnect(true);
        for (long handle : this.opened) {
            assertThat(this.backend.real.getOption(handle, NativeSocketOption.TCP_NODELAY)).as("TCP_NODELAY of " + handle)
                    .isEqualTo(1);
        }
        assertThat(this.backend.calls).as("one look at the first connection, nothing more").containsExactly(
                "getOption " + this.opened.peek());
    }

    @Test
    void whereAcceptedSocketsDoNotInheritItEachConnectionIsSetOnItsOwn() throws Exception {
        this.backend.hideInheritance = true;
        serveAndConnect(true);
        List<String> expected = new ArrayList<>();
        expected.add("getOption " + this.opened.peek());
        this.opened.forEach((handle) -> expected.add("setOption " + handle));
        assertThat(this.backend.calls).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void whenTheFirstLookFailsThatConnectionIsSetOnItsOwnAndTheNextOneIsAsked() throws Exception {
        this.backend.failFirstLook = true;
        serveAndConnect(true);
        Long[] handles = this.opened.toArray(new Long[0]);
        assertThat(this.backend.calls).containsExactly("getOption " + handles[0], "setOption " + handles[0],
                "getOption " + handles[1]);
        for (long handle : handles) {
            assertThat(this.backend.real.getOption(handle, NativeSocketOption.TCP_NODELAY)).isEqualTo(1);
        }
    }

    @Test
    void withTcpNoDelayOffAcceptedConnectionsKeepNagle() throws Exception {
        serveAndConnect(false);
        for (long handle : this.opened) {
            assertThat(this.backend.real.getOption(handle, NativeSocketOption.TCP_NODELAY)).isZero();
        }
        assertThat(this.backend.calls).isEmpty();
    }

    /** Starts an echo listener, connects {@link #CLIENTS} clients one after the other and has each echo a byte. */
    private void serveAndConnect(boolean tcpNoDelay) throws Exception {
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                TcpNoDelayTest.this.opened.add(((TcpConnection) connection).handle);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        };
        ListenerSettings listener = ServerFixture.tcp("echo").tcpNoDelay(tcpNoDelay).handler(handler).build();
        this.server = new SocketServer(this.backend, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(listener), ServerObserver.NONE);
        this.server.start();
        this.backend.recording = true;
        for (int i = 0; i < CLIENTS; i++) {
            Socket client = new Socket();
            this.clients.add(client);
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber()), 5000);
            client.setSoTimeout(10_000);
            client.getOutputStream().write(i);
            assertThat(client.getInputStream().read()).isEqualTo(i);
        }
        assertThat(this.opened).hasSize(CLIENTS);
    }

    /**
     * The real backend, its sockets recording every TCP_NODELAY call made once the listener is bound,
     * and, when asked, reporting accepted sockets as if they had not inherited the option.
     */
    static final class RecordingBackend extends ForwardingBackend {

        final NativeSockets real;

        final Queue<String> calls = new ConcurrentLinkedQueue<>();

        volatile boolean recording;

        volatile boolean hideInheritance;

        volatile boolean failFirstLook;

        private final NativeSockets sockets;

        RecordingBackend(Backend delegate) {
            super(delegate);
            this.real = delegate.sockets();
            this.sockets = (NativeSockets) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] { NativeSockets.class }, (proxy, method, args) -> {
                        boolean noDelay = args != null && args.length > 1 && args[1] == NativeSocketOption.TCP_NODELAY;
                        if (noDelay && this.recording) {
                            this.calls.add(method.getName() + " " + args[0]);
                            if (this.hideInheritance && method.getName().equals("getOption")) {
                                return 0;
                            }
                            if (this.failFirstLook && method.getName().equals("getOption")) {
                                this.failFirstLook = false;
                                throw new NativeIoException("getsockopt(TCP_NODELAY)", NativeError.INVALID_ARGUMENT, 22,
                                        "Invalid argument");
                            }
                        }
                        try {
                            return method.invoke(this.real, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }

        @Override
        public NativeSockets sockets() {
            return this.sockets;
        }
    }
}

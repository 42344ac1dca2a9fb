package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.embedded.EmbeddedPort;
import dev.sockstate.server.engine.embedded.EmbeddedSocket;
import dev.sockstate.server.engine.embedded.RecordingErrors;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.OffWorker;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ServerObserver;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One connection of a TCP listener without a socket, to unit-test a handler: the bytes a test
 * writes in arrive as from the peer, and what the connection sends is kept for the test to read.
 * Between the two runs the code a real connection runs, made from the same {@link ListenerSettings}:
 * the engine's connection, its turns and its way out, the listener's stages, its framing, its
 * charset and {@link dev.sockstate.server.MessageMapper} for typed messages, and its handler, called
 * as the server calls it (a handler that throws has its connection aborted; bytes that do not frame
 * or do not read as the handler's message type reach its {@code onError}, then the connection
 * closes once the answer, if any, is sent). Only the socket and the notification port are
 * in memory.
 * <pre>{@code
 * EmbeddedConnection embedded = EmbeddedConnection.open(ListenerSettings.tcp("echo")
 *         .framing(Framing.line()).handler((connection, line) -> connection.write(line)).build());
 * embedded.writeInbound("one\ntwo\n");
 * assertThat(embedded.readAllOutboundText()).isEqualTo("one\ntwo\n");
 * }</pre>
 * <b>Threads.</b> Everything runs on the calling thread, synchronously: each method returns once
 * the connection went quiet (its handler calls returned, its sends were made, a close finished).
 * The listener's handler executor is not used: the calls run inline, and the replies to one read's
 * frames leave in one send only on a listener without an executor, as on a worker. Calls a handler
 * makes on its {@link Connection} from another thread (or the test's own calls on
 * {@link #connection()} outside a handler call) wait, as on a server, for the thread that owns the
 * connection: here the next call on this harness ({@link #runPending()}, say), as does what a stage
 * resumes from another thread (a TLS engine's delegated tasks: give the listener's
 * {@link dev.sockstate.server.tls.Tls} a direct task executor, {@code Runnable::run}, to run them
 * inline). The harness itself is used by one thread at a time.
 * <p>
 * <b>What is not real.</b> No port, worker, timer or native call: nothing of JNA or a backend is
 * loaded. The socket takes every send whole at once (its buffer never fills, so {@code onWritable}
 * never follows and reading never pauses), and a read returns what the peer wrote, up to a
 * worker's read buffer ({@link Builder#readBufferSize}). Idle timeouts and TLS handshake timeouts do not
 * fire. The addresses are made up:
 * the local one is the listener's address (the loopback address when it binds every interface) and
 * port number, the remote one the loopback address and port number {@value #DEFAULT_REMOTE_PORT_NUMBER}, unless
 * the {@link Builder} is given others. The connection's {@link Connection#id() id} is 1.
 */
public final class EmbeddedConnection implements AutoCloseable {

    /** The peer's port number unless the builder is given another remote address: the first of the dynamic range. */
    public static final int DEFAULT_REMOTE_PORT_NUMBER = 49152;

    /** Notifications one settling hands out at most: more means a connection that never goes quiet. */
    private static final int MOST_NOTIFICATIONS = 1_000_000;

    private final ListenerSettings settings;

    private final EmbeddedSocket socket;

    private final EmbeddedPort port;

    /** The driving thread's runner: memory of its own, every change applied at once. */
    private final OffWorker runner;

    /** One notification a dequeue: handed to the connection in the port's order. */
    private final NotificationBatch notifications = new NotificationBatch(1);

    private final Listener listener;

    private final TcpConnection connection;

    /** Whether {@link #settle()} runs: a call from inside it (a handler driving the harness) leaves the work to it. */
    private boolean settling;

    private final List<Throwable> errors = new ArrayList<>();

    private boolean peerShut;

    private EmbeddedConnection(Builder builder) {
        ListenerSettings settings = builder.settings;
        this.settings = settings;
        this.socket = new EmbeddedSocket(builder.localAddress(), builder.remoteAddress());
        this.port = new EmbeddedPort(this.socket);
        this.runner = new OffWorker(this.socket, builder.readBufferSize);
        WorkerGroupSettings group = new WorkerGroupSettings(settings.connection().group(), 1, 1, Duration.ofSeconds(1), builder.readBufferSize,
                "sockstate-embedded-");
        SocketTable table = new SocketTable(1);
        WorkerGroup workers = new WorkerGroup(group, List.of(this.port), this.socket, table, ServerObserver.NONE);
        ListenerSettings recording = withHandler(settings, new RecordingErrors(settings.connectionHandler(), this.errors));
        // No scheduler: it serves the accept back-off of a listening socket, which an embedded connection has none of.
        this.listener = new Listener(recording, workers, this.socket, table, null, new AtomicLong(), ServerObserver.NONE,
                ChangeRules.EPOLL);
        // As the acceptor does: the connection is made, owned by this thread, entered and counted, then opened.
        this.connection = new TcpConnection(this.listener.profile, EmbeddedSocket.HANDLE);
        table.add(this.connection);
        // A listener of its own, with room for its one connection.
        this.listener.state.admit();
        this.listener.state.accepted();
        this.connection.open(this.runner);
        settle();
    }

    /**
     * Opens a connection of the listener: its stages are made, and the open passes through them to
     * the handler's {@code onOpen}, as when the listener accepts one.
     * @param settings a TCP listener's settings
     * @return the connection, open unless a stage or the handler closed it
     * @throws IllegalArgumentException for a UDP listener, or one without a handler
     */
    public static EmbeddedConnection open(ListenerSettings settings) {
        return builder(settings).open();
    }

    /**
     * @param settings a TCP listener's settings
     * @return a builder of a connection of that listener, for other addresses or read buffer
     * @throws IllegalArgumentException for a UDP listener, or one without a handler
     */
    public static Builder builder(ListenerSettings settings) {
        return new Builder(settings);
    }

    /** @return the connection as its handler sees it: write to it, close it, read its attributes */
    public Connection connection() {
        return this.connection;
    }

    /** @return the listener's settings, as given */
    public ListenerSettings settings() {
        return this.settings;
    }

    /**
     * Bytes arrive from the peer and are read as from a socket: through the stages and the framing
     * to the handler, whose replies are sent before this returns. Once the connection is closed,
     * the bytes are dropped, as a closed socket drops them.
     * @param data the bytes from position to limit; consumed (copied)
     * @throws IllegalStateException after {@link #hangup()} or {@link #reset()}: the peer sends nothing more
     */
    public void writeInbound(ByteBuffer data) {
        if (this.peerShut) {
            throw new IllegalStateException("The peer of " + this.connection + " hung up or reset it: it sends nothing more");
        }
        if (data.hasRemaining() && !this.socket.closed()) {
            this.socket.peerWrites(data);
        }
        data.position(data.limit());
        settle();
    }

    /**
     * Bytes arrive from the peer, as {@link #writeInbound(ByteBuffer)}.
     * @param data the bytes
     */
    public void writeInbound(byte[] data) {
        writeInbound(ByteBuffer.wrap(data));
    }

    /**
     * Text arrives from the peer, in the listener's charset, as {@link #writeInbound(ByteBuffer)}.
     * @param text the text
     */
    public void writeInbound(String text) {
        writeInbound(this.settings.connection().charset().encode(text));
    }

    /**
     * The peer shut its side (a FIN): the stages, then the handler ({@code onHangup}) hear of it after
     * what the peer wrote before; by default the handler then closes the connection. Calling it again
     * does nothing more.
     */
    public void hangup() {
        if (!this.peerShut) {
            this.peerShut = true;
            this.socket.peerShuts();
        }
        settle();
    }

    /**
     * The peer reset the connection: the connection is aborted, and its handler's {@code onError}
     * receives a {@link dev.sockstate.port.NativeIoException} whose error is
     * {@link dev.sockstate.port.NativeError#CONNECTION_RESET}, as from a real socket.
     */
    public void reset() {
        if (!this.socket.closed()) {
            this.peerShut = true;
            this.socket.peerResets();
        }
        settle();
    }

    /**
     * Runs what waits for the thread that owns the connection: writes, closes and output shutdowns
     * asked for from other threads, or by the test outside a handler call. Writing in, reading out,
     * hanging up, resetting and closing run them too.
     */
    public void runPending() {
        settle();
    }

    /**
     * @return the oldest send the connection made towards the socket and the test did not read yet,
     * or {@code null} when there is none: one buffer a send (with framing, a write is one frame, and
     * on a listener without a handler executor the replies to one read's frames leave in one send),
     * read-only, from position to limit
     */
    public @Nullable ByteBuffer readOutbound() {
        settle();
        return this.socket.takeSent();
    }

    /** @return the oldest send not read yet ({@link #readOutbound()}) as text in the listener's charset, {@code null} when none */
    public @Nullable String readOutboundText() {
        ByteBuffer sent = readOutbound();
        return (sent != null) ? this.settings.connection().charset().decode(sent).toString() : null;
    }

    /** @return every send not read yet, joined; empty when there is none */
    public byte[] readAllOutbound() {
        settle();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteBuffer sent;
        while ((sent = this.socket.takeSent()) != null) {
            byte[] bytes = new byte[sent.remaining()];
            sent.get(bytes);
            all.writeBytes(bytes);
        }
        return all.toByteArray();
    }

    /** @return every send not read yet, joined, as text in the listener's charset; empty when there is none */
    public String readAllOutboundText() {
        return new String(readAllOutbound(), this.settings.connection().charset());
    }

    /**
     * @return what reached the handler's {@code onError} so far, oldest first: a
     * {@link dev.sockstate.server.framing.FramingException} or
     * {@link dev.sockstate.server.InvalidMessageException} for bytes that do not frame or do not read,
     * the reason a stage aborted the connection, a reset. As on a server, what a handler method
     * throws does not reach {@code onError} (it is logged and counted in {@link #handlerErrors()}).
     */
    public List<Throwable> errors() {
        return List.copyOf(this.errors);
    }

    /**
     * @return the handler calls and stages that threw so far, as the listener counts them
     * ({@link dev.sockstate.server.BoundListener#handlerErrors()})
     */
    public long handlerErrors() {
        return this.listener.describe().handlerErrors();
    }

    /** @return whether the connection is open and not closing ({@link Connection#isOpen()}) */
    public boolean isOpen() {
        return this.connection.isOpen();
    }

    /**
     * @return whether the connection closed its socket: it is finished, and its handler heard
     * {@code onClose} if it heard {@code onOpen}
     */
    public boolean isClosed() {
        return this.socket.closed();
    }

    /** @return whether the connection sent its FIN ({@link Connection#shutdownOutput()}) */
    public boolean isOutputShutdown() {
        return this.socket.outputShut();
    }

    /**
     * Closes the connection from the server's side, as {@link Connection#close()} does: once what
     * it queued is sent, the stages and the handler hear of the close. Does nothing more once it is
     * closed.
     */
    @Override
    public void close() {
        this.connection.close();
        settle();
    }

    @Override
    public String toString() {
        return "embedded " + this.connection;
    }

    /**
     * Plays the worker's loop until nothing is left to do: what the port hands out (run requests, the
     * REMOVE, the socket's events) goes to the connection's turn, one notification at a time.
     * @throws IllegalStateException when the connection never goes quiet
     */
    private void settle() {
        if (this.settling) {
            return;
        }
        this.settling = true;
        try {
            for (int handed = 0; handed < MOST_NOTIFICATIONS; handed++) {
                if (this.port.dequeue(this.notifications, 0) == 0) {
                    return;
                }
                int events = this.notifications.events(0);
                if (this.notifications.isPosted(0)) {
                    this.connection.notified(this.runner, 0);
                }
                else if ((events & Events.REMOVE) != 0) {
                    this.connection.removed();
                }
                else {
                    this.connection.notified(this.runner, events);
                }
            }
            throw new IllegalStateException("The embedded connection did not go quiet after " + MOST_NOTIFICATIONS
                    + " notifications: a handler or stage that asks for a turn at every turn?");
        }
        catch (NativeIoException ex) {
            throw new IllegalStateException("The embedded port failed", ex);
        }
        finally {
            this.settling = false;
        }
    }

    /**
     * The settings with the handler given; a handler executor becomes the driving thread itself: the
     * harness runs every call there, and what depends on having an executor (replies not gathered)
     * stays as it is.
     */
    private static ListenerSettings withHandler(ListenerSettings s, ConnectionHandler handler) {
        Executor onTheCaller = (s.connection().handlerExecutor() != null) ? Runnable::run : null;
        return s.toBuilder().handler(handler).handlerExecutor(onTheCaller).build();
    }

    /** Builds an {@link EmbeddedConnection} with other addresses or another read buffer than the defaults. */
    public static final class Builder {

        /** The default worker group's read buffer. */
        private static final int DEFAULT_READ_BUFFER_SIZE = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)
                .readBufferSize();

        private final ListenerSettings settings;

        private @Nullable SocketAddress localAddress;

        private @Nullable SocketAddress remoteAddress;

        private int readBufferSize = DEFAULT_READ_BUFFER_SIZE;

        private Builder(ListenerSettings settings) {
            if (settings.protocol() != Protocol.TCP) {
                throw new IllegalArgumentException("Listener '" + settings.name() + "' is a " + settings.protocol()
                        + " listener; an embedded connection is a TCP listener's");
            }
            if (settings.connectionHandler() == null) {
                throw new IllegalArgumentException("Listener '" + settings.name() + "' has no ConnectionHandler to embed");
            }
            this.settings = settings;
        }

        /**
         * @param address what {@link Connection#localAddress()} answers; by default the listener's
         * address (the loopback address when it binds every interface) and port number, or its Unix
         * domain socket's path
         * @return this builder
         */
        public Builder localAddress(SocketAddress address) {
            this.localAddress = address;
            return this;
        }

        /**
         * @param address what {@link Connection#remoteAddress()} answers, the peer's; by default the
         * loopback address and port number {@value EmbeddedConnection#DEFAULT_REMOTE_PORT_NUMBER}, or an
         * unnamed Unix domain socket (an empty path) on a listener of a Unix domain socket
         * @return this builder
         */
        public Builder remoteAddress(SocketAddress address) {
            this.remoteAddress = address;
            return this;
        }

        /**
         * @param bytes the most one read returns, as the worker group's
         * {@link WorkerGroupSettings#readBufferSize() read buffer}; 64 KiB by default
         * @return this builder
         */
        public Builder readBufferSize(int bytes) {
            this.readBufferSize = bytes;
            return this;
        }

        /**
         * Opens the connection, as {@link EmbeddedConnection#open(ListenerSettings)}.
         * @return the connection
         * @throws dev.sockstate.server.InvalidSettingException when the read buffer size is out of range
         */
        public EmbeddedConnection open() {
            return new EmbeddedConnection(this);
        }

        private SocketAddress localAddress() {
            if (this.localAddress != null || this.settings.isUnix()) {
                return (this.localAddress != null) ? this.localAddress : UnixDomainSocketAddress.of(this.settings.unixPath());
            }
            InetAddress bound = this.settings.address();
            InetAddress address = (bound != null && !bound.isAnyLocalAddress()) ? bound : InetAddress.getLoopbackAddress();
            return new InetSocketAddress(address, this.settings.portNumber());
        }

        private SocketAddress remoteAddress() {
            if (this.remoteAddress != null || this.settings.isUnix()) {
                return (this.remoteAddress != null) ? this.remoteAddress : UnixDomainSocketAddress.of("");
            }
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), DEFAULT_REMOTE_PORT_NUMBER);
        }
    }
}

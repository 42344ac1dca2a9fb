package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection of a framed listener, without a socket, for the framing benchmark (which lives
 * outside the engine and reaches it through this test fixture): {@link #read} hands bytes to the
 * listener's framing as a read would, and its handler counts the frames and their bytes without
 * writing. A connection's state is the engine's own, so what a read costs is what the framing costs.
 */
public final class FramingFixture implements AutoCloseable {

    private final NotificationPort port;

    private final ServerScheduler scheduler = new ServerScheduler("framing-fixture");

    private final TcpConnection connection;

    private long frames;

    private long bytes;

    /**
     * @param backend the backend, for its sockets and a port (no socket is opened)
     * @param framing the listener's framing
     * @throws NativeIoException when the port cannot be opened
     */
    public FramingFixture(Backend backend, Framing framing) throws NativeIoException {
        this.port = backend.openPort();
        WorkerGroupSettings groupSettings = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1);
        SocketTable table = new SocketTable(16);
        WorkerGroup group = new WorkerGroup(groupSettings, List.of(this.port), backend.sockets(), table, ServerObserver.NONE);
        ConnectionHandler counting = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                FramingFixture.this.frames++;
                FramingFixture.this.bytes += data.remaining();
            }
        };
        ListenerSettings settings = ListenerSettings.tcp("framed").address(InetAddress.getLoopbackAddress()).framing(framing)
                .handler(counting).build();
        Listener listener = new Listener(settings, group, backend.sockets(), table, this.scheduler, new AtomicLong(),
                ServerObserver.NONE,
                ChangeRules.of(backend));
        this.connection = new TcpConnection(listener.profile, -1);
    }

    /**
     * Hands one read's bytes to the framing, which passes each whole frame to the handler and keeps
     * an unfinished one for the next read.
     * @param data the bytes, consumed
     */
    public void read(ByteBuffer data) {
        this.connection.handlerEnd(data);
    }

    /** @return the frames the handler got so far */
    public long frames() {
        return this.frames;
    }

    /** @return the content bytes the handler got so far */
    public long bytes() {
        return this.bytes;
    }

    /** @return whether the connection keeps an unfinished frame */
    public boolean keepsPartialFrame() {
        return this.connection.framingPartial() != null;
    }

    @Override
    public void close() {
        this.scheduler.shutdown(System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
        this.port.close();
    }
}

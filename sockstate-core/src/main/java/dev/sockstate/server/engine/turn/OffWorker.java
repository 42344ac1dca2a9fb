package dev.sockstate.server.engine.turn;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.RegistrationBatch;
import org.jspecify.annotations.Nullable;

/**
 * A thread that is not one of a group's workers running a socket's turn: a handler executor's, the
 * one that starts or stops the server, or an embedded connection's. It dequeues from no port, so each
 * registration change is applied at once. Its memory (a batch of one change, a read buffer made on
 * first use) is lent by the group for one turn, not kept per thread; {@link #HANDING_ON} has none: it
 * reads into heap buffers and leaves registration changes to a worker of the socket's port.
 */
public final class OffWorker implements Runner {

    /** The runner of a thread lent no memory. */
    public static final OffWorker HANDING_ON = new OffWorker(null, 0);

    private final @Nullable NativeSockets sockets;

    private final int readBufferSize;

    private final @Nullable RegistrationBatch singleChange;

    private final @Nullable PeerAddress peer;

    private @Nullable NativeBuffer readBuffer;

    /**
     * @param sockets the backend's sockets, which allocate its memory
     * @param readBufferSize the size of its read buffer, made on first use
     */
    public OffWorker(@Nullable NativeSockets sockets, int readBufferSize) {
        this.sockets = sockets;
        this.readBufferSize = readBufferSize;
        this.singleChange = (sockets != null) ? new RegistrationBatch(1) : null;
        this.peer = (sockets != null) ? PeerAddress.empty() : null;
    }

    @Override
    public boolean isWorker() {
        return false;
    }

    @Override
    public boolean handsOn() {
        return this.sockets == null;
    }

    @Override
    public boolean dequeuesFrom(NotificationPort port) {
        return false;
    }

    @Override
    public void carry(SocketTurn socket) {
        throw new IllegalStateException("A thread that dequeues from no port carries no change");
    }

    @Override
    public RegistrationBatch singleChange() {
        requireMemory();
        return this.singleChange;
    }

    @Override
    public @Nullable NativeBuffer readBuffer() {
        if (this.sockets == null) {
            return null;
        }
        if (this.readBuffer == null) {
            this.readBuffer = this.sockets.allocate(this.readBufferSize);
        }
        return this.readBuffer;
    }

    @Override
    public PeerAddress peer() {
        requireMemory();
        return this.peer;
    }

    private void requireMemory() {
        if (this.sockets == null) {
            throw new IllegalStateException("A thread lent no memory hands registration changes on instead");
        }
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.RegistrationBatch;

/**
 * A thread that is not one of a group's workers letting go of a socket it owns: a handler
 * executor's, or the one that starts or stops the server. It dequeues from no port, so each
 * registration change is applied at once. Its memory (a batch of one change, a read buffer made on
 * first use) is lent by the group for one letting go, not kept per thread; {@link #HANDING_ON} has
 * none, and hands what is left of the turn to a worker of the socket's port.
 */
final class OffWorker implements Runner {

    /** The runner of a thread lent no memory. */
    static final OffWorker HANDING_ON = new OffWorker(null, 0);

    private final NativeSockets sockets;

    private final int readBufferSize;

    private final RegistrationBatch singleChange;

    private final PeerAddress peer;

    private NativeBuffer readBuffer;

    OffWorker(NativeSockets sockets, int readBufferSize) {
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
    public void queue(SocketTurn socket, Operation operation, int filter) {
        throw new IllegalStateException("A thread that dequeues from no port queues no change");
    }

    @Override
    public void applyQueued() {
    }

    @Override
    public RegistrationBatch singleChange() {
        requireMemory();
        return this.singleChange;
    }

    @Override
    public NativeBuffer readBuffer() {
        requireMemory();
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
            throw new IllegalStateException("A thread lent no memory hands its turn on instead");
        }
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.RegistrationBatch;

/**
 * A thread that is not one of a group's workers running a socket's turn: a handler executor's, or
 * the one that starts or stops the server. It dequeues from no port, so each registration change is
 * applied at once; its read buffer is its own, made on first use. One per thread and group.
 */
final class OffWorker implements Runner {

    private final NativeSockets sockets;

    private final int readBufferSize;

    private final RegistrationBatch singleChange = new RegistrationBatch(1);

    private final PeerAddress peer = PeerAddress.empty();

    private NativeBuffer readBuffer;

    OffWorker(NativeSockets sockets, int readBufferSize) {
        this.sockets = sockets;
        this.readBufferSize = readBufferSize;
    }

    @Override
    public boolean isWorker() {
        return false;
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
        return this.singleChange;
    }

    @Override
    public NativeBuffer readBuffer() {
        if (this.readBuffer == null) {
            this.readBuffer = this.sockets.allocate(this.readBufferSize);
        }
        return this.readBuffer;
    }

    @Override
    public PeerAddress peer() {
        return this.peer;
    }
}

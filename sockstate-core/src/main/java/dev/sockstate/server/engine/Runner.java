package dev.sockstate.server.engine;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.RegistrationBatch;

/**
 * The thread that runs a socket's turn, and what it lends the turn: a {@link Worker}, which dequeues
 * from a port and carries registration changes in its next batch call, or {@link OffWorker}, any
 * other thread (a handler executor's, or the one that starts or stops the server), which applies
 * each change at once, or hands the turn on when it has no memory lent.
 */
interface Runner {

    /** @return whether this is a worker thread, which hands slow handler calls to an executor */
    boolean isWorker();

    /**
     * @return whether this thread holds no memory for the turn (more threads let go of sockets at
     *     once than the runners kept), so what is left of the turn goes to a worker of the socket's port
     */
    boolean handsOn();

    /**
     * @param port a port
     * @return whether this thread's batch calls reach that port (it is a worker dequeuing from it)
     */
    boolean dequeuesFrom(NotificationPort port);

    /**
     * Queues a change for this thread's next batch call; only when it {@linkplain #dequeuesFrom
     * dequeues from} the socket's port.
     * @param socket whose change it is
     * @param operation the change
     * @param filter the events, for ENABLE
     */
    void queue(SocketTurn socket, Operation operation, int filter);

    /** Applies the changes queued so far at once, instead of in the next batch call. */
    void applyQueued();

    /** @return a batch of one change, for a change applied at once; reused by this thread */
    RegistrationBatch singleChange();

    /** @return this thread's read buffer, valid during the turn */
    NativeBuffer readBuffer();

    /** @return this thread's sender address of a datagram, valid during the turn */
    PeerAddress peer();
}

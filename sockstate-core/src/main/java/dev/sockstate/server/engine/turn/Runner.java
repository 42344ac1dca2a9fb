package dev.sockstate.server.engine.turn;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.RegistrationBatch;
import org.jspecify.annotations.Nullable;

/**
 * The thread that runs a socket's turn, and what it lends the turn: a {@link Worker}, which dequeues
 * from a port and may carry registration changes in its next call, or {@link OffWorker}, any other
 * thread (a handler executor's, the one that starts or stops the server, an embedded connection's),
 * which applies each change at once, or hands the turn on when it has no memory lent.
 */
public interface Runner {

    /** @return whether this is a worker thread, which hands a turn with handler work to an executor */
    boolean isWorker();

    /**
     * @return whether this thread holds no memory for the turn (more threads run turns at once than
     *     the runners kept), so registration changes are left to a worker of the socket's port
     */
    boolean handsOn();

    /**
     * @param port a port
     * @return whether this thread's calls reach that port (it is a worker dequeuing from it)
     */
    boolean dequeuesFrom(NotificationPort port);

    /**
     * Carries a socket in this thread's next call on its port, which applies what the socket wants
     * then; only when it {@linkplain #dequeuesFrom dequeues from} the socket's port.
     * @param socket the socket, marked {@link SocketTurn#CARRIED}
     */
    void carry(SocketTurn socket);

    /** @return a batch of one change, for a change applied at once; reused by this thread */
    RegistrationBatch singleChange();

    /** @return this thread's read buffer, valid during the turn; {@code null} when it has no memory lent */
    @Nullable NativeBuffer readBuffer();

    /** @return this thread's sender address of a datagram, valid during the turn */
    PeerAddress peer();

    /**
     * A worker's thread, which may be the only one that runs the turns of its port's sockets: a run
     * one of them asks for from that thread is then the thread's own, with no message through the port.
     */
    interface Alone {

        /** @return whether this thread is the only one that runs the turns of that port's sockets now */
        boolean runsAlone(NotificationPort port);

        /** @param socket a socket of the port it runs alone, whose requests it runs once the work at hand is done */
        void runLater(SocketTurn socket);
    }

    /**
     * @param port a socket's port
     * @return the calling thread, when it is the only one that runs the turns of that port's sockets; else {@code null}
     */
    static @Nullable Alone aloneOn(NotificationPort port) {
        return (Thread.currentThread() instanceof Alone alone && alone.runsAlone(port)) ? alone : null;
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A listener's handler executor, and how a connection's turn moves there: the worker hands the
 * ownership over with the open, one read's bytes, or the work its stages resumed, and the executor's
 * thread passes them inbound (through the stages to the handler), sends the FIN asked for, and lets
 * the connection go. Bytes that
 * arrived during the call raised no edge of their own and a graceful stop's drain is not over, so in
 * those cases that thread yields to a worker, which reads on.
 */
final class HandlerExecution {

    private final Listener listener;

    private final Executor executor;

    HandlerExecution(Listener listener, Executor executor) {
        this.listener = listener;
        this.executor = executor;
    }

    /**
     * Hands the rest of a connection's turn to the executor, which passes the open or the bytes
     * inbound. A refusal fails this connection only (counted, and told to the handler if it opened),
     * and the turn goes on on the calling thread.
     * @param connection the connection, owned by the calling worker
     * @param data one read's bytes (a copy), or {@code null} for the open
     * @return whether the executor took the task
     */
    boolean handOff(TcpConnection connection, ByteBuffer data) {
        return handOff(connection, () -> pass(connection, data));
    }

    /**
     * Hands the rest of a connection's turn to the executor, which runs the work its stages resumed
     * (the end of a TLS handshake step, which may open the connection and pass what came with it),
     * then yields the turn's events to a worker. A refusal fails the connection, as above.
     * @param connection the connection, owned by the calling worker, whose stages resumed work
     * @param events the turn's events, for the worker that takes the turn on
     * @return whether the executor took the task
     */
    boolean handOffResumes(TcpConnection connection, int events) {
        return handOff(connection, () -> resume(connection, events));
    }

    private boolean handOff(TcpConnection connection, Runnable rest) {
        connection.handOver();
        try {
            this.executor.execute(() -> run(connection, rest));
            return true;
        }
        catch (RejectedExecutionException ex) {
            if (!connection.takeOverHandedOff()) {
                // A stop finished the connection meanwhile: nothing is left to do here.
                return true;
            }
            this.listener.executorRefused(connection, "closing the connection", ex);
            connection.failed(ex);
            return false;
        }
    }

    private void run(TcpConnection connection, Runnable rest) {
        if (!connection.takeOverHandedOff()) {
            // A stop finished the connection before this task ran.
            return;
        }
        try {
            rest.run();
        }
        catch (RuntimeException | LinkageError ex) {
            // The runtime's own failure (handlers' are caught where they are called): still let go.
            connection.runtimeFailed(ex);
        }
        this.listener.group.letGo(connection);
    }

    private static void pass(TcpConnection connection, ByteBuffer data) {
        if (connection.isAborting()) {
            // Aborted meanwhile: the handler hears nothing more.
        }
        else if (data == null) {
            connection.inboundOpen();
        }
        else {
            connection.inboundData(data);
        }
        connection.output.shutdownIfDue();
        if (connection.isDraining()) {
            // A graceful stop: the next turn reads on, until what arrived is answered.
            connection.yieldTurn(0);
        }
        else if (data != null && connection.trigger.isEdge() && !connection.trigger.isOneShot()) {
            // What arrived during the call raised no edge of its own: a worker reads on.
            connection.yieldTurn(Events.IN);
        }
    }

    private static void resume(TcpConnection connection, int events) {
        if (!connection.isAborting()) {
            connection.runResumes();
            connection.output.shutdownIfDue();
        }
        if (events != 0 || connection.isDraining()) {
            // What the notification reported (data to read, a hang-up) is a worker's to handle.
            connection.yieldTurn(events);
        }
    }
}

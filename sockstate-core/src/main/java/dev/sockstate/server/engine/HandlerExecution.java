package dev.sockstate.server.engine;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A listener's handler executor, and how a connection's turns move there: a worker that claims a
 * connection with anything for its handler (events, the open, writes or work its stages resumed,
 * a graceful stop's drain) hands the ownership and the turn over, and the executor's thread runs the
 * whole turn, reads included, and lets the connection go. Every callback of the handler (open, data,
 * writable, hang-up, error) thus runs on the executor, and {@code onClose}, which follows the
 * connection's end, is one more task there; the workers only dequeue, claim and hand over.
 */
final class HandlerExecution {

    private final Listener listener;

    private final Executor executor;

    HandlerExecution(Listener listener, Executor executor) {
        this.listener = listener;
        this.executor = executor;
    }

    /**
     * Hands the rest of a connection's turn to the executor. A refusal fails this connection only
     * (counted, and told to the handler if it opened), and the turn goes on on the calling thread.
     * @param connection the connection, owned by the calling worker
     * @param events the turn's events
     * @param opening whether the turn opens the connection (passes the open inbound first)
     * @return whether the executor took the task
     */
    boolean handOff(TcpConnection connection, int events, boolean opening) {
        connection.handOver();
        try {
            this.executor.execute(() -> run(connection, events, opening));
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

    private void run(TcpConnection connection, int events, boolean opening) {
        if (!connection.takeOverHandedOff()) {
            // A stop finished the connection before this task ran.
            return;
        }
        this.listener.lend((runner) -> {
            boolean letGo = true;
            try {
                letGo = connection.turnHandedOver(runner, events, opening);
            }
            catch (RuntimeException | LinkageError ex) {
                // The runtime's own failure (handlers' are caught where they are called): still let go.
                connection.runtimeFailed(ex);
            }
            if (letGo) {
                connection.release(runner);
            }
        });
    }

    /**
     * Runs what follows a connection's end for its handler ({@code onClose}) on the executor, or on
     * the calling thread when the executor refuses it (it is shut down, say).
     * @param ending what to run
     */
    void afterEnd(Runnable ending) {
        try {
            this.executor.execute(ending);
        }
        catch (RejectedExecutionException ex) {
            ending.run();
        }
    }
}

package dev.sockstate.server.engine;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The graceful part of a server's stop, while its workers still serve: stop accepting (serving the
 * connections the kernel already completed), let handlers in flight finish and queued writes drain,
 * close every connection once what arrived was answered, and abort what is still busy at the
 * deadline.
 */
final class GracefulStop {

    private static final System.Logger logger = System.getLogger(GracefulStop.class.getName());

    private final SocketTable table;

    private final List<SocketTurn> listenerSockets;

    private final Collection<WorkerGroup> groups;

    GracefulStop(SocketTable table, List<SocketTurn> listenerSockets, Collection<WorkerGroup> groups) {
        this.table = table;
        this.listenerSockets = listenerSockets;
        this.groups = groups;
    }

    /** @param deadline the {@link System#nanoTime()} by which connections must have finished */
    void run(long deadline) {
        if (!workersServing()) {
            return;
        }
        this.listenerSockets.forEach(SocketTurn::requestDrainAndClose);
        awaitUntil(() -> this.listenerSockets.stream().allMatch(SocketTurn::isFinished), deadline, false);
        this.listenerSockets.forEach((socket) -> socket.requestClose(true));
        awaitUntil(this::isQuiet, deadline, true);
        connections().forEach(TcpConnection::requestDrainAndClose);
        awaitUntil(() -> connections().isEmpty(), deadline, false);
        List<TcpConnection> left = connections();
        if (!left.isEmpty() && workersServing()) {
            logger.log(Level.WARNING, left.size() + " connections were still busy when the shutdown timeout ended; aborting them");
            left.forEach((connection) -> connection.requestClose(true));
            awaitUntil(() -> this.table.size() == 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(1), false);
        }
        awaitUntil(() -> this.table.size() == 0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500), false);
    }

    private boolean isQuiet() {
        for (TcpConnection connection : connections()) {
            if (connection.isOwned() || connection.pendingWriteBytes() > 0) {
                return false;
            }
        }
        return true;
    }

    private List<TcpConnection> connections() {
        List<TcpConnection> connections = new ArrayList<>();
        for (SocketTurn socket : this.table.snapshot()) {
            if (socket instanceof TcpConnection connection) {
                connections.add(connection);
            }
        }
        return connections;
    }

    /**
     * @return whether every group's port is open and has a live worker, so that requests handed to
     * the workers are carried out
     */
    private boolean workersServing() {
        return !this.groups.isEmpty() && this.groups.stream().allMatch(WorkerGroup::serving);
    }

    /**
     * Waits until the condition holds (twice in a row when {@code settle}), the deadline passes, or
     * no worker is left to make it true.
     */
    private void awaitUntil(BooleanSupplier condition, long deadline, boolean settle) {
        int streak = 0;
        while (System.nanoTime() < deadline && workersServing()) {
            if (condition.getAsBoolean()) {
                if (!settle || ++streak >= 2) {
                    return;
                }
            }
            else {
                streak = 0;
            }
            try {
                Thread.sleep(5);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

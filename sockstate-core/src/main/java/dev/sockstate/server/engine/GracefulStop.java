package dev.sockstate.server.engine;

import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.WorkerGroup;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The graceful part of a server's stop, while its workers still serve: stop accepting (serving the
 * connections the kernel already completed), then ask every connection at once to close as soon as
 * it owes nothing, accepted ones before clients' (its handler call returned, what it had read when the drain reached it answered,
 * its queued bytes sent). Such a connection sends its FIN and waits for its peer's: what its peer sent
 * meanwhile is read and dropped until the peer's own FIN, so that closing resets no answer still in flight;
 * peers that do not close within a second, and connections still busy at the deadline, are aborted.
 * Returns once the last connection is done. The same drain removes one listener (or client) from a
 * running server: its own sockets and connections only, while the others go on.
 */
final class GracefulStop {

    private static final System.Logger logger = System.getLogger(GracefulStop.class.getName());

    /** How long connections that answered everything and sent their FIN wait for their peers' FIN, at most. */
    private static final long FIN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final SocketTable table;

    private final List<SocketTurn> listenerSockets;

    private final Collection<WorkerGroup> groups;

    /** Which connections the drain closes: every one for a stop, one listener's or client's for its removal. */
    private final Predicate<TcpConnection> scope;

    /** Whether it is a whole server's stop, which ends once the table is empty. */
    private final boolean whole;

    /** A whole server's stop. */
    GracefulStop(SocketTable table, List<SocketTurn> listenerSockets, Collection<WorkerGroup> groups) {
        this(table, listenerSockets, groups, null);
    }

    /**
     * @param table the server's sockets
     * @param listenerSockets the listening sockets that stop accepting
     * @param groups the worker groups that serve them
     * @param scope the connections to close, {@code null} for every one (a whole server's stop)
     */
    GracefulStop(SocketTable table, List<SocketTurn> listenerSockets, Collection<WorkerGroup> groups,
            @Nullable Predicate<TcpConnection> scope) {
        this.table = table;
        this.listenerSockets = listenerSockets;
        this.groups = groups;
        this.whole = scope == null;
        this.scope = (scope != null) ? scope : (connection) -> true;
    }

    /**
     * @param deadline the {@link System#nanoTime()} by which connections must have finished
     * @param end the {@link System#nanoTime()} by which the whole stop must be over: the aborted
     * connections are waited for until then at most
     */
    void run(long deadline, long end) {
        if (!workersServing()) {
            return;
        }
        this.listenerSockets.forEach(SocketTurn::requestDrainAndClose);
        awaitUntil(() -> this.listenerSockets.stream().allMatch(SocketTurn::isFinished), deadline);
        this.listenerSockets.forEach((socket) -> socket.requestClose(true));
        // Accepted connections first, then clients' (an accepted one may still wait for a backend's
        // reply): each closes as soon as it owes nothing: no call running, nothing unsent, and what
        // arrived before the stop answered. Only those still busy at the deadline are aborted.
        drain(false, deadline);
        drain(true, deadline);
        List<TcpConnection> left = connections();
        if (!left.isEmpty() && workersServing()) {
            long busy = left.stream().filter((connection) -> !connection.awaitsPeerFin()).count();
            if (busy > 0) {
                logger.log(Level.WARNING, busy + " connections were still busy when the shutdown timeout ended; aborting them");
            }
            left.forEach((connection) -> connection.requestClose(true));
            awaitUntil(this::nothingLeft, Math.min(end, System.nanoTime() + TimeUnit.SECONDS.toNanos(1)));
        }
        awaitUntil(this::nothingLeft, Math.min(end, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500)));
    }

    /** @return whether the listening sockets and the connections in scope are all gone from the table */
    private boolean nothingLeft() {
        if (this.whole) {
            return this.table.size() == 0;
        }
        return connections().isEmpty() && this.listenerSockets.stream().allMatch(SocketTurn::isFinished);
    }

    /** Drains the accepted connections, or the clients' ones. */
    private void drain(boolean clients, long deadline) {
        Supplier<List<TcpConnection>> connections = () -> connections().stream()
                .filter((connection) -> (connection instanceof ClientConnection) == clients).collect(Collectors.toList());
        connections.get().forEach(TcpConnection::requestDrainAndClose);
        awaitUntil(() -> connections.get().stream().allMatch(TcpConnection::awaitsPeerFin), deadline);
        // Those left owe nothing and sent their FIN: their peers get a moment to close their side.
        awaitUntil(() -> connections.get().isEmpty(), Math.min(deadline, System.nanoTime() + FIN_WAIT_NANOS));
    }

    private List<TcpConnection> connections() {
        List<TcpConnection> connections = connectionsIn(this.table);
        connections.removeIf(this.scope.negate());
        return connections;
    }

    /**
     * @param table a server's sockets
     * @return the TCP connections among them now
     */
    static List<TcpConnection> connectionsIn(SocketTable table) {
        List<TcpConnection> connections = new ArrayList<>();
        for (SocketTurn socket : table.snapshot()) {
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

    /** Waits until the condition holds, the deadline passes, or no worker is left to make it true. */
    private void awaitUntil(BooleanSupplier condition, long deadline) {
        while (System.nanoTime() < deadline && workersServing() && !condition.getAsBoolean()) {
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

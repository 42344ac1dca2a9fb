package dev.sockstate.server.engine;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.RegistrationBatch;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The registration changes a worker collected for its next call on its port, each with the socket
 * that asked for it, and how their results reach those sockets: after a call that applied them; one
 * by one when the port refused the whole call; all refused when the port is gone. The worker's
 * thread only.
 */
final class QueuedChanges {

    private static final Logger logger = System.getLogger(QueuedChanges.class.getName());

    /** The longest of the pauses (1, 2, 4 ms) before a call refused for want of memory is made again. */
    private static final int MEMORY_PAUSE_MILLIS_MAX = 4;

    private final Runner worker;

    private final NotificationPort port;

    private final String groupName;

    private final RegistrationBatch batch;

    private final SocketTurn[] owners;

    private final Operation[] appliedOperations;

    private final SocketTurn[] appliedOwners;

    private final NativeIoException[] appliedFailures;

    /** Whether {@link #applied()} is reporting, so that a nested call uses arrays of its own. */
    private boolean reporting;

    /**
     * @param worker the worker whose changes these are, named to the sockets with their results
     * @param port its port
     * @param groupName its group's name, for the log
     * @param capacity how many changes one call carries at most
     */
    QueuedChanges(Runner worker, NotificationPort port, String groupName, int capacity) {
        this.worker = worker;
        this.port = port;
        this.groupName = groupName;
        this.batch = new RegistrationBatch(capacity);
        this.owners = new SocketTurn[capacity];
        this.appliedOperations = new Operation[capacity];
        this.appliedOwners = new SocketTurn[capacity];
        this.appliedFailures = new NativeIoException[capacity];
    }

    /** @return whether no change waits */
    boolean isEmpty() {
        return this.batch.isEmpty();
    }

    /** @return the changes for the next call, {@code null} when none waits */
    RegistrationBatch forNextCall() {
        return this.batch.isEmpty() ? null : this.batch;
    }

    /** Queues a change for the next call; a full batch is applied first. */
    void add(SocketTurn socket, Operation operation, int filter) {
        if (this.batch.size() == this.batch.capacity()) {
            flush();
        }
        this.owners[socket.addChange(this.batch, operation, filter)] = socket;
    }

    /** Applies the changes now, in a call of their own, and reports their results. */
    void flush() {
        try {
            this.port.apply(this.batch);
        }
        catch (NativeIoException ex) {
            applyOneByOne(ex);
            return;
        }
        catch (RuntimeException ex) {
            // The port is closed (a stop), or failed otherwise: every change still gets its result.
            refuseAll(ex);
            return;
        }
        applied();
    }

    /**
     * Reports the results of the changes the last call applied, then empties the batch. A report
     * may lead to more changes applied at once (a refused re-arm closes its socket), so a nested
     * call reports through arrays of its own.
     */
    void applied() {
        int count = this.batch.size();
        if (count == 0) {
            return;
        }
        if (this.reporting) {
            report(count, new Operation[count], new SocketTurn[count], new NativeIoException[count]);
            return;
        }
        this.reporting = true;
        try {
            report(count, this.appliedOperations, this.appliedOwners, this.appliedFailures);
        }
        finally {
            this.reporting = false;
        }
    }

    private void report(int count, Operation[] operations, SocketTurn[] sockets, NativeIoException[] failures) {
        for (int i = 0; i < count; i++) {
            operations[i] = this.batch.operation(i);
            sockets[i] = this.owners[i];
            failures[i] = this.batch.failed(i) ? this.batch.failure(i, "ProcessSocketNotifications") : null;
            this.owners[i] = null;
        }
        this.batch.clear();
        for (int i = 0; i < count; i++) {
            SocketTurn owner = sockets[i];
            sockets[i] = null;
            owner.changeApplied(this.worker, operations[i], failures[i]);
            failures[i] = null;
        }
    }

    /**
     * The port refused a whole call that carried the changes (Windows then names no entry): made
     * again after short pauses when memory was short, else each change is applied alone, so that
     * only a change the port cannot take fails (its socket is closed, as for any refused change) and
     * the others hold.
     * @param refusal why the whole call was refused
     */
    void applyOneByOne(NativeIoException refusal) {
        if (refusal.error() == NativeError.NO_MEMORY && appliedAfterPauses()) {
            return;
        }
        int count = this.batch.size();
        logger.log(Level.DEBUG, () -> "A call with " + count + " registration changes was refused whole in group '"
                + this.groupName + "' (" + refusal.getMessage() + "); applying them one at a time");
        Operation[] operations = new Operation[count];
        SocketTurn[] sockets = new SocketTurn[count];
        NativeIoException[] failures = new NativeIoException[count];
        RegistrationBatch alone = new RegistrationBatch(1);
        for (int i = 0; i < count; i++) {
            operations[i] = this.batch.operation(i);
            sockets[i] = this.owners[i];
            this.owners[i] = null;
            alone.clear();
            switch (operations[i]) {
                case ENABLE -> alone.enable(this.batch.socket(i), this.batch.key(i), this.batch.filter(i), this.batch.triggerFlags(i));
                case DISABLE -> alone.disable(this.batch.socket(i), this.batch.key(i));
                default -> alone.remove(this.batch.socket(i), this.batch.key(i));
            }
            try {
                this.port.apply(alone);
                failures[i] = alone.failed(0) ? alone.failure(0, "ProcessSocketNotifications") : null;
            }
            catch (NativeIoException ex) {
                failures[i] = ex;
            }
            catch (PortClosedException ex) {
                failures[i] = new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0, ex.getMessage());
            }
            catch (RuntimeException ex) {
                // Every change still gets its result, so that no socket waits for one that will not come.
                failures[i] = new NativeIoException("ProcessSocketNotifications", NativeError.OTHER, 0, String.valueOf(ex));
            }
        }
        this.batch.clear();
        for (int i = 0; i < count; i++) {
            if (failures[i] != null) {
                logger.log(Level.WARNING, "The port refused " + operations[i] + " for " + sockets[i] + " alone: " + failures[i].getMessage());
            }
            sockets[i].changeApplied(this.worker, operations[i], failures[i]);
        }
    }

    /**
     * A whole call refused for want of memory, a transient condition, is made again after short
     * pauses before its changes are split: splitting would fail every one of them while the
     * shortage lasts.
     * @return whether a later call applied the changes (their results are reported)
     */
    private boolean appliedAfterPauses() {
        for (int pause = 1; pause <= MEMORY_PAUSE_MILLIS_MAX; pause *= 2) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pause));
            try {
                this.port.apply(this.batch);
            }
            catch (NativeIoException ex) {
                if (ex.error() == NativeError.NO_MEMORY) {
                    continue;
                }
                return false;
            }
            catch (RuntimeException ex) {
                // (The port closed, or failed otherwise.) Split, each change gets its own result.
                return false;
            }
            applied();
            return true;
        }
        return false;
    }

    /**
     * On the worker's way out (stopped, or dying): the changes still queued are applied now, or, the
     * port being closed, reported refused, so that no socket waits for a call that will not come (a
     * REMOVE completes its close, a refused re-arm closes its socket).
     */
    void settle() {
        while (!this.batch.isEmpty()) {
            try {
                this.port.apply(this.batch);
                applied();
            }
            catch (NativeIoException | PortClosedException ex) {
                refuseAll(ex);
            }
        }
    }

    private void refuseAll(Exception cause) {
        int count = this.batch.size();
        Operation[] operations = new Operation[count];
        SocketTurn[] sockets = new SocketTurn[count];
        for (int i = 0; i < count; i++) {
            operations[i] = this.batch.operation(i);
            sockets[i] = this.owners[i];
            this.owners[i] = null;
        }
        this.batch.clear();
        NativeIoException refused = new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0,
                "the port cannot take the changes (" + cause + ")");
        for (int i = 0; i < count; i++) {
            sockets[i].changeApplied(this.worker, operations[i], refused);
        }
    }
}

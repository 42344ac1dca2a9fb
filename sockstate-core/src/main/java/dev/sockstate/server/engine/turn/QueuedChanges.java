package dev.sockstate.server.engine.turn;

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
import org.jspecify.annotations.Nullable;

/**
 * The sockets a worker carries in its next call on its port ({@link SocketTurn#CARRIED}), and the
 * call's batch: built from what each socket wants as the call is made ({@link SocketTurn#addWanted}),
 * and reported to the sockets once it returned, one by one when the port refused the whole call, all
 * refused when the port is gone. Reporting runs no turn. The worker's thread only.
 */
final class QueuedChanges {

    private static final Logger logger = System.getLogger(QueuedChanges.class.getName());

    /** The longest of the pauses (1, 2, 4 ms) before a call refused for want of memory is made again. */
    private static final int MEMORY_PAUSE_MILLIS_MAX = 4;

    private final NotificationPort port;

    private final String groupName;

    /** The sockets carried, in the order they were handed over; {@link #waiting} of them. */
    private final @Nullable SocketTurn[] carried;

    private int waiting;

    /** The batch of the call being made, and the socket of each of its entries. */
    private final RegistrationBatch batch;

    private final @Nullable SocketTurn[] inBatch;

    /** The results of the last call, read out of its batch before the sockets hear of them. */
    private final Operation[] reportedOperations;

    private final @Nullable NativeIoException[] reportedFailures;

    /**
     * @param port its port
     * @param groupName its group's name, for the log
     * @param capacity how many changes one call carries at most
     */
    QueuedChanges(NotificationPort port, String groupName, int capacity) {
        this.port = port;
        this.groupName = groupName;
        this.carried = new SocketTurn[capacity];
        this.batch = new RegistrationBatch(capacity);
        this.inBatch = new SocketTurn[capacity];
        this.reportedOperations = new Operation[capacity];
        this.reportedFailures = new NativeIoException[capacity];
    }

    /** @return whether no socket is carried */
    boolean isEmpty() {
        return this.waiting == 0;
    }

    /** Carries a socket in the next call; when as many wait as a call takes, they are applied first. */
    void add(SocketTurn socket) {
        if (this.waiting + this.batch.size() >= this.carried.length) {
            flush();
        }
        this.carried[this.waiting++] = socket;
    }

    /**
     * Builds the next call's changes from what each carried socket wants now, after those of a call
     * that failed before it applied anything, which are made again.
     * @return the changes, {@code null} when none waits
     */
    @Nullable RegistrationBatch forNextCall() {
        if (this.waiting == 0) {
            return this.batch.isEmpty() ? null : this.batch;
        }
        for (int i = 0; i < this.waiting; i++) {
            SocketTurn socket = this.carried[i];
            this.carried[i] = null;
            this.inBatch[addWanted(socket)] = socket;
        }
        this.waiting = 0;
        return this.batch;
    }

    /**
     * Adds what a carried socket wants now to the call being built, once it was read: REMOVE, an
     * enable of the filter wanted, or a disable. A change made after this marks the socket restated.
     * @return the index of the entry
     */
    private int addWanted(SocketTurn socket) {
        int current;
        do {
            current = socket.word();
        }
        while ((current & SocketTurn.RESTATED) != 0 && !socket.casWord(current, current & ~SocketTurn.RESTATED));
        if ((current & SocketTurn.REMOVING) != 0) {
            return this.batch.remove(socket.handle, socket.key);
        }
        int filter = socket.armedFilter();
        return (filter > 0) ? this.batch.enable(socket.handle, socket.key, filter, socket.trigger)
                : this.batch.disable(socket.handle, socket.key);
    }

    /**
     * The call applied (or refused) a carried socket's change: the socket is let go of, or carried once
     * more when what it wants changed since. Runs no turn: a refusal is recorded and a run asked for.
     * @param operation the change applied
     * @param failure why it was refused, or {@code null}
     */
    private void carried(SocketTurn socket, Operation operation, @Nullable NativeIoException failure) {
        socket.observer.registrationChanged(operation, failure == null);
        int current;
        boolean again;
        do {
            current = socket.word();
            // (Nothing follows a REMOVE: what was wanted after it is moot. A refusal closes the socket,
            // unless a REMOVE was wanted since, which this carrier still owes.)
            again = (current & SocketTurn.RESTATED) != 0 && operation != Operation.REMOVE
                    && (failure == null || (current & SocketTurn.REMOVING) != 0);
        }
        while (!again && !socket.casWord(current, current & ~SocketTurn.CARRIED));
        if (again) {
            add(socket);
        }
        else if (failure != null && operation == Operation.REMOVE) {
            // Nothing is registered (the socket was never armed, or is gone): no REMOVE will come.
            socket.removed();
            return;
        }
        else if (failure != null && (current & SocketTurn.REMOVING) == 0) {
            socket.refused(failure);
        }
        socket.finishIfDone();
    }

    /** Applies the carried sockets' changes now, in a call of their own, and reports them. */
    void flush() {
        RegistrationBatch changes = forNextCall();
        if (changes == null) {
            return;
        }
        try {
            this.port.apply(changes);
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
     * Reports the results of the call that carried the batch, then empties it. A socket may be carried
     * again meanwhile (what it wants changed since): it goes into the next call.
     */
    void applied() {
        int count = this.batch.size();
        for (int i = 0; i < count; i++) {
            this.reportedOperations[i] = this.batch.operation(i);
            this.reportedFailures[i] = this.batch.failed(i) ? this.batch.failure(i, "ProcessSocketNotifications") : null;
        }
        // Emptied before the sockets hear of it: one that is carried again goes into the next call,
        // which never fills up meanwhile (at most as many are carried again as were reported).
        this.batch.clear();
        for (int i = 0; i < count; i++) {
            SocketTurn socket = this.inBatch[i];
            NativeIoException failure = this.reportedFailures[i];
            this.inBatch[i] = null;
            this.reportedFailures[i] = null;
            carried(socket, this.reportedOperations[i], failure);
        }
    }

    /**
     * The port refused a whole call that carried the changes (Windows then names no entry), nothing
     * applied: made again after short pauses when memory was short, else each change is applied
     * alone, so that only a change the port cannot take fails and the others hold.
     * @param refusal why the whole call was refused
     */
    void applyOneByOne(NativeIoException refusal) {
        if (refusal.error() == NativeError.NO_MEMORY && appliedAfterPauses()) {
            return;
        }
        int count = this.batch.size();
        logger.log(Level.DEBUG, () -> "A call with " + count + " registration changes was refused whole in group '"
                + this.groupName + "' (" + refusal.getMessage() + "); applying them one at a time");
        RegistrationBatch alone = new RegistrationBatch(1);
        NativeIoException[] failures = new NativeIoException[count];
        for (int i = 0; i < count; i++) {
            alone.clear();
            switch (this.batch.operation(i)) {
                case ENABLE -> alone.enable(this.batch.socket(i), this.batch.key(i), this.batch.filter(i), this.batch.triggerFlags(i));
                case DISABLE -> alone.disable(this.batch.socket(i), this.batch.key(i));
                default -> alone.remove(this.batch.socket(i), this.batch.key(i));
            }
            failures[i] = applyAlone(alone);
            if (failures[i] != null) {
                logger.log(Level.WARNING, "The port refused " + this.batch.operation(i) + " for " + this.inBatch[i] + " alone: "
                        + failures[i].getMessage());
            }
        }
        report(failures);
    }

    private @Nullable NativeIoException applyAlone(RegistrationBatch alone) {
        try {
            this.port.apply(alone);
            return alone.failed(0) ? alone.failure(0, "ProcessSocketNotifications") : null;
        }
        catch (NativeIoException ex) {
            return ex;
        }
        catch (PortClosedException ex) {
            return new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0, ex.getMessage());
        }
        catch (RuntimeException ex) {
            // Every change still gets its result, so that no socket waits for one that will not come.
            return new NativeIoException("ProcessSocketNotifications", NativeError.OTHER, 0, String.valueOf(ex));
        }
    }

    /** Reports the batch's entries with the given results, then empties it. */
    private void report(NativeIoException[] failures) {
        int count = this.batch.size();
        Operation[] operations = new Operation[count];
        SocketTurn[] sockets = new SocketTurn[count];
        for (int i = 0; i < count; i++) {
            operations[i] = this.batch.operation(i);
            sockets[i] = this.inBatch[i];
            this.inBatch[i] = null;
        }
        this.batch.clear();
        for (int i = 0; i < count; i++) {
            carried(sockets[i], operations[i], failures[i]);
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
     * On the worker's way out (stopped, or dying): the sockets still carried are applied now, or, the
     * port being closed, reported refused, so that none waits for a call that will not come (a REMOVE
     * completes its close, a refused re-arm closes its socket).
     */
    void settle() {
        // (A refused change is never carried again, so a closed port empties this in one round.)
        for (int round = 0; (!isEmpty() || !this.batch.isEmpty()) && round < 16; round++) {
            flush();
        }
        if (!isEmpty() || !this.batch.isEmpty()) {
            forNextCall();
            refuseAll(new IllegalStateException("the worker stopped with changes still restated"));
        }
    }

    private void refuseAll(Exception cause) {
        NativeIoException refused = new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0,
                "the port cannot take the changes (" + cause + ")");
        NativeIoException[] failures = new NativeIoException[this.batch.size()];
        java.util.Arrays.fill(failures, refused);
        report(failures);
    }
}

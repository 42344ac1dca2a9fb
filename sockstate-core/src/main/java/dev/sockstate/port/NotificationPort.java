package dev.sockstate.port;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A socket state notification port: Winsock's I/O completion port fed by
 * {@code ProcessSocketNotifications}, or an epoll instance. Sockets are registered with a completion
 * key, an event filter and a trigger; any number of threads dequeue notifications from the port at
 * once. Closing the port wakes every waiter with a {@link PortClosedException}.
 * <p>
 * Completion keys are caller-chosen, non-negative values (a connection's index and generation, say);
 * the port never interprets them.
 *
 * <h2>What every backend guarantees</h2>
 * These hold on epoll and on Windows alike; where the two differ, the weaker is promised, and code
 * that runs on every backend relies on nothing more (a backend that offers more says so, as
 * {@link Backend#edgeOnEveryArrival()} does):
 * <ul>
 * <li><b>Edges come from changes after the enable.</b> An edge-triggered registration notifies a
 * condition that becomes true while it is enabled; readiness that already held when it was enabled
 * (data already received, a socket already writable) may raise no notification. After every
 * ENABLE of an edge-triggered registration, and after every edge notification, read (or write)
 * until the call would block: only then is the next change sure to raise an edge. While data is
 * unread, new data need not raise another edge.</li>
 * <li><b>Level-triggered notifications may be stale.</b> A notification is delivered as it was
 * queued: IN or OUT may come when the condition no longer holds (the data was read meanwhile), so a
 * read or write after a notification may find nothing to do and would block.</li>
 * <li><b>Queued notifications outlive a change.</b> A notification already queued may still be
 * delivered after a DISABLE, and after the socket is closed (closing deregisters silently, without
 * REMOVE).</li>
 * <li><b>REMOVE comes last.</b> After a REMOVE operation exactly one notification carries
 * {@link Events#REMOVE}, and nothing follows it for that key; notifications queued before it may
 * come first, and their events may be joined with REMOVE in one notification ({@code IN|REMOVE}).</li>
 * <li><b>ERR is learnt from a read.</b> ERR may come whatever the filter asks; once it was delivered,
 * {@link NativeSockets#takeError(long)} may report nothing, while a read reports the error.</li>
 * <li>Events coalesce: one notification per registration is queued at a time, its events joined.
 * A one-shot registration is disabled, not removed, after one notification.</li>
 * </ul>
 */
public interface NotificationPort extends AutoCloseable {

    /** Timeout that waits until a notification arrives or the port closes. */
    long INFINITE = -1;

    /**
     * Applies a batch of registration changes, then dequeues up to the batch's capacity of
     * notifications: the shape of {@code ProcessSocketNotifications}. Every change gets its own
     * result in {@code changes}; a refused change does not stop the others or the dequeue.
     * @param changes the changes to apply first, or {@code null} for none
     * @param notifications where to dequeue into, or {@code null} to only apply changes
     * @param timeoutMillis how long to wait when nothing is queued: zero polls, {@link #INFINITE}
     * waits until something arrives
     * @return the number of notifications dequeued, zero on timeout
     * @throws NativeIoException when the call itself failed (nothing was applied)
     * @throws PortClosedException when the port is closed, or was closed while waiting
     */
    int process(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException;

    /**
     * Applies registration changes only; check each entry's result afterwards.
     * @param changes the changes
     * @throws NativeIoException when the call itself failed
     */
    default void apply(RegistrationBatch changes) throws NativeIoException {
        process(changes, null, 0);
    }

    /**
     * Dequeues notifications only.
     * @param notifications where to dequeue into
     * @param timeoutMillis zero polls, {@link #INFINITE} waits
     * @return the number dequeued, zero on timeout
     * @throws NativeIoException when the call failed
     */
    default int dequeue(NotificationBatch notifications, long timeoutMillis) throws NativeIoException {
        return process(null, notifications, timeoutMillis);
    }

    /**
     * Removes a registration and returns a future completed when its REMOVE notification is
     * dequeued (by whichever thread dequeues it): the many-socket form of waiting for a removal.
     * The REMOVE notification is still delivered to that thread as usual.
     * @param socket the socket handle
     * @param key its completion key
     * @return a future completed by the REMOVE notification, failed when the removal was refused
     * or the port closed first
     */
    CompletableFuture<Void> deregister(long socket, long key);

    /**
     * Posts a message to the port, as {@code PostQueuedCompletionStatus} does: one dequeuing thread
     * receives it as an entry whose {@link NotificationBatch#isPosted(int)} is true.
     * @param key any key; it comes back with the message
     * @param payload a small payload
     * @throws NativeIoException when the message could not be queued
     */
    void post(long key, int payload) throws NativeIoException;

    /** @return whether the port is open */
    boolean isOpen();

    /** @return the backend's name, such as {@code epoll} */
    String backendName();

    /**
     * Closes the port: every thread waiting in it, and every later caller, gets a
     * {@link PortClosedException}; the native resources are released when the last caller has left.
     * Registered sockets are not closed (they belong to their owner).
     */
    @Override
    void close();
}

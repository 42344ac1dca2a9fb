package dev.sockstate.port;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * What every backend's port shares: the checks of the portable contract, closing that wakes every
 * waiter and releases native resources only once the last caller has left, and removals that can
 * be awaited. Backends implement the native part in {@link #doProcess}, {@link #doPost},
 * {@link #wakeAllForClose()} and {@link #release()}, and fill the batches through the protected
 * static methods, which only a backend can reach: users of the port read batches, never write them.
 */
public abstract class AbstractNotificationPort implements NotificationPort {

    private static final System.Logger logger = System.getLogger(NotificationPort.class.getName());

    private static final int CLOSED = 1 << 30;

    /** Callers inside the port in the low bits, {@link #CLOSED} once closed. */
    private final AtomicInteger state = new AtomicInteger();

    private final AtomicBoolean released = new AtomicBoolean();

    private final AtomicBoolean edgeOneShotLogged = new AtomicBoolean();

    private final Map<Long, CompletableFuture<Void>> removals = new ConcurrentHashMap<>();

    @Override
    public final int process(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        if (timeoutMillis < INFINITE) {
            throw new IllegalArgumentException("Timeout " + timeoutMillis + " ms is invalid; use zero or more, or INFINITE (-1)");
        }
        if (changes != null && !changes.isEmpty()) {
            checkTriggers(changes);
        }
        enter();
        try {
            int count = doProcess(changes, notifications, timeoutMillis);
            if ((this.state.get() & CLOSED) != 0) {
                throw new PortClosedException(toString());
            }
            if (count > 0 && !this.removals.isEmpty()) {
                completeRemovals(notifications, count);
            }
            return count;
        }
        finally {
            exit();
        }
    }

    @Override
    public final CompletableFuture<Void> deregister(long socket, long key) {
        CompletableFuture<Void> removal = new CompletableFuture<>();
        if (this.removals.putIfAbsent(key, removal) != null) {
            removal.completeExceptionally(new IllegalStateException("A removal of key " + key + " is already awaited"));
            return removal;
        }
        RegistrationBatch change = new RegistrationBatch(1);
        change.remove(socket, key);
        try {
            apply(change);
            if (change.failed(0)) {
                throw change.failure(0, "deregister");
            }
        }
        catch (NativeIoException | RuntimeException ex) {
            this.removals.remove(key, removal);
            removal.completeExceptionally(ex);
        }
        return removal;
    }

    @Override
    public final void post(long key, int payload) throws NativeIoException {
        enter();
        try {
            doPost(key, payload);
        }
        finally {
            exit();
        }
    }

    @Override
    public final boolean isOpen() {
        return (this.state.get() & CLOSED) == 0;
    }

    @Override
    public final void close() {
        int current;
        do {
            current = this.state.get();
            if ((current & CLOSED) != 0) {
                return;
            }
        }
        // Closing counts as a caller inside the port until the wake-up is written: the last waiter
        // to leave meanwhile cannot release the descriptor it is written to.
        while (!this.state.compareAndSet(current, (current + 1) | CLOSED));
        try {
            wakeAllForClose();
        }
        finally {
            exit();
        }
    }

    /**
     * Applies the changes and dequeues, as {@link #process} describes; called only while the port
     * is open and never after {@link #release()}.
     * @param changes the changes, or {@code null}
     * @param notifications where to dequeue into, or {@code null}
     * @param timeoutMillis zero, positive, or {@link #INFINITE}
     * @return the number of notifications stored in {@code notifications}
     * @throws NativeIoException when the native call failed
     */
    protected abstract int doProcess(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications,
            long timeoutMillis) throws NativeIoException;

    /**
     * Queues a posted message.
     * @param key its key
     * @param payload its payload
     * @throws NativeIoException when it could not be queued
     */
    protected abstract void doPost(long key, int payload) throws NativeIoException;

    /** Makes every thread waiting in the port, and every later wait, return at once. */
    protected abstract void wakeAllForClose();

    /** Releases the native resources; called once, when the port is closed and no caller is inside. */
    protected abstract void release();

    private void checkTriggers(RegistrationBatch changes) {
        if (this.edgeOneShotLogged.get()) {
            return;
        }
        for (int i = 0; i < changes.size(); i++) {
            if (changes.triggerFlags(i) == Trigger.EDGE_ONESHOT.flags()
                    && this.edgeOneShotLogged.compareAndSet(false, true)) {
                logger.log(Level.WARNING, "Socket registered edge-triggered and one-shot on " + this
                        + ": allowed, but not recommended, since every re-arm must be followed by reading until"
                        + " the socket would block; prefer level one-shot or edge persistent");
                return;
            }
        }
    }

    private void completeRemovals(NotificationBatch notifications, int count) {
        for (int i = 0; i < count; i++) {
            if (!notifications.isPosted(i) && (notifications.events(i) & Events.REMOVE) != 0) {
                CompletableFuture<Void> removal = this.removals.remove(notifications.key(i));
                if (removal != null) {
                    removal.complete(null);
                }
            }
        }
    }

    private void enter() {
        int current;
        do {
            current = this.state.get();
            if ((current & CLOSED) != 0) {
                throw new PortClosedException(toString());
            }
        }
        while (!this.state.compareAndSet(current, current + 1));
    }

    private void exit() {
        if (this.state.decrementAndGet() == CLOSED) {
            releaseOnce();
        }
    }

    private void releaseOnce() {
        if (this.released.compareAndSet(false, true)) {
            release();
            PortClosedException closed = new PortClosedException(toString());
            this.removals.values().forEach((removal) -> removal.completeExceptionally(closed));
            this.removals.clear();
        }
    }

    /**
     * Stores a socket notification in a batch.
     * @param batch the batch dequeued into
     * @param index entry index
     * @param key completion key
     * @param events delivered events
     */
    protected static void storeNotification(NotificationBatch batch, int index, long key, int events) {
        batch.setNotification(index, key, events);
    }

    /**
     * Stores a posted message in a batch.
     * @param batch the batch dequeued into
     * @param index entry index
     * @param key the message's key
     * @param payload the message's payload
     */
    protected static void storePosted(NotificationBatch batch, int index, long key, int payload) {
        batch.setPosted(index, key, payload);
    }

    /**
     * @param batch the batch dequeued into
     * @param size the number of entries stored
     */
    protected static void storeSize(NotificationBatch batch, int size) {
        batch.setSize(size);
    }

    /**
     * Records the result of one change.
     * @param batch the changes
     * @param index entry index
     * @param error the failure, or {@code null} on success
     * @param code the backend's code, zero on success
     */
    protected static void storeResult(RegistrationBatch batch, int index, @Nullable NativeError error, int code) {
        batch.setResult(index, error, code);
    }

    /**
     * @param batch a batch
     * @return the native memory a backend keeps with it, or {@code null} until it sets some
     */
    protected static @Nullable NativeBuffer nativeMemory(NotificationBatch batch) {
        return batch.nativeBuffer();
    }

    /**
     * @param batch a batch
     * @param memory the native memory a backend dequeues into, kept with the batch
     */
    protected static void nativeMemory(NotificationBatch batch, NativeBuffer memory) {
        batch.nativeBuffer(memory);
    }

    /**
     * @param batch a batch
     * @return the native memory a backend keeps with it, or {@code null} until it sets some
     */
    protected static @Nullable NativeBuffer nativeMemory(RegistrationBatch batch) {
        return batch.nativeBuffer();
    }

    /**
     * @param batch a batch
     * @param memory the native memory a backend marshals the changes into, kept with the batch
     */
    protected static void nativeMemory(RegistrationBatch batch, NativeBuffer memory) {
        batch.nativeBuffer(memory);
    }
}

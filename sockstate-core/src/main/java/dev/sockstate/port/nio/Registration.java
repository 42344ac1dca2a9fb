package dev.sockstate.port.nio;

import java.nio.channels.SelectionKey;
import org.jspecify.annotations.Nullable;

/**
 * One socket's registration on one port, the attachment of its selection key. Its filter, trigger
 * and arming are the port's to change, under the port's lock; so are its place in the port's ready
 * list ({@link #queued}, {@link #next}) and the events waiting there. Only {@link #masked} and
 * {@link #filter} are read without the lock: by the socket calls that report a would-block, and by
 * the selecting thread's hang-up probe, both of which the port checks again under the lock.
 * <p>
 * A REMOVE ends a registration for good: the key stays (interest none) and the next ENABLE attaches
 * a new registration to it, so readiness a select found for the old one cannot pass as the new one's.
 */
final class Registration {

    /** {@link #masked}: the read side (IN, HANGUP) waits for a would-block or an ENABLE. */
    static final int READ_SIDE = 1;

    /** {@link #masked}: the write side (OUT) waits for a would-block or an ENABLE. */
    static final int WRITE_SIDE = 2;

    final NioPort port;

    final NioSocket socket;

    /** The selection key, or {@code null} for a REMOVE notification queued on its own. */
    final @Nullable SelectionKey key;

    long completionKey;

    volatile int filter;

    int triggerFlags;

    /** Whether it may notify: false once DISABLEd, or once a one-shot registration notified. */
    boolean armed;

    /** Whether it was removed (REMOVE, or its socket closed): nothing more is found for it. */
    boolean removed;

    /**
     * The sides kept out of the interest set ({@link #READ_SIDE}, {@link #WRITE_SIDE}): reported by an
     * edge-triggered registration and not yet read or written to would-block since.
     */
    volatile int masked;

    /** Whether it waits in the port's ready list. */
    boolean queued;

    /** The events it waits there with, joined. */
    int pending;

    /** The completion key it waits there with. */
    long pendingKey;

    /** The next in the ready list. */
    @Nullable Registration next;

    Registration(NioPort port, NioSocket socket, @Nullable SelectionKey key) {
        this.port = port;
        this.socket = socket;
        this.key = key;
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.time.Duration;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * Closes the sockets of a listener or a client whose SO_LINGER is positive, on a thread of its own: such
 * a close waits until the unsent data is acknowledged or the linger time is over (on Linux whether or
 * not the socket blocks), and no worker may wait that long. The thread starts with the first such close
 * and ends when none is left; a stop waits for the closes handed over, which each end within the linger
 * time, so that no descriptor outlives its server.
 */
final class LingeringCloser {

    private static final Logger logger = System.getLogger(LingeringCloser.class.getName());

    private final NativeSockets sockets;

    private final String threadName;

    /** The sockets handed over and not yet closed; guarded by this. */
    private final ArrayDeque<Long> handles = new ArrayDeque<>();

    /** Whether a thread is closing; guarded by this. */
    private boolean closing;

    /**
     * @param sockets the backend's sockets
     * @param threadName the name of its thread
     */
    LingeringCloser(NativeSockets sockets, String threadName) {
        this.sockets = sockets;
        this.threadName = threadName;
    }

    /** @param handle a socket, out of the server's table, to close off the calling thread */
    void close(long handle) {
        synchronized (this) {
            this.handles.add(handle);
            if (this.closing) {
                return;
            }
            this.closing = true;
        }
        Thread thread = new Thread(this::closeAll, this.threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void closeAll() {
        while (true) {
            long handle;
            synchronized (this) {
                Long next = this.handles.poll();
                if (next == null) {
                    this.closing = false;
                    notifyAll();
                    return;
                }
                handle = next;
            }
            try {
                this.sockets.close(handle);
            }
            catch (NativeIoException ex) {
                // The descriptor is released all the same.
            }
        }
    }

    /**
     * Waits for the closes handed over, each of which ends within the linger time.
     * @param linger the linger time, after which a close returns
     * @param label the listener or client, for the warning when they do not end
     */
    void awaitClosed(Duration linger, String label) {
        long deadline = System.nanoTime() + linger.toNanos() + Duration.ofSeconds(1).toNanos();
        synchronized (this) {
            try {
                while (this.closing) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        logger.log(Level.WARNING, label + " still had " + this.handles.size() + " sockets to close after their linger"
                                + " time (" + linger.toSeconds() + " s); they are closed in the background");
                        return;
                    }
                    wait(Math.max(1, left / 1_000_000));
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @param linger the settings' linger, {@code null} for none
     * @param sockets the backend's sockets
     * @param threadName the name of its thread
     * @return a closer where closes wait (a positive linger), {@code null} where they do not
     */
    static @Nullable LingeringCloser forLinger(@Nullable Duration linger, NativeSockets sockets, String threadName) {
        return (linger != null && !linger.isZero()) ? new LingeringCloser(sockets, threadName) : null;
    }
}

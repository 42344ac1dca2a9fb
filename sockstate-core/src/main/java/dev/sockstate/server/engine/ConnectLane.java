package dev.sockstate.server.engine;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One client's lane on the server's connect threads: its connects (a name lookup, a socket opened)
 * run one at a time, in the order asked, on whichever of those threads is free, so that one client
 * whose lookups hang holds one thread, and delays no other client's connects. The threads are made
 * as lanes need them and end when idle: at most one per client at a time.
 */
final class ConnectLane implements Executor {

    private final Executor threads;

    /** The connects waiting; under this lane's monitor. */
    private final Queue<Runnable> waiting = new ArrayDeque<>();

    /** Whether a connect of the lane runs, or is handed to a thread; under this lane's monitor. */
    private boolean running;

    /** @param threads the server's connect threads */
    ConnectLane(Executor threads) {
        this.threads = threads;
    }

    @Override
    public void execute(Runnable connect) {
        synchronized (this) {
            if (this.running) {
                this.waiting.add(connect);
                return;
            }
            this.running = true;
        }
        handOver(connect);
    }

    private void handOver(Runnable connect) {
        try {
            this.threads.execute(() -> runFrom(connect));
        }
        catch (RejectedExecutionException ex) {
            // The server stopped (its clients no longer connect): the connect is refused to its caller, and those
            // that came behind it meanwhile run here, where they end at once as stopped, their futures told.
            Runnable next;
            while ((next = nextOrIdle()) != null) {
                try {
                    next.run();
                }
                catch (RuntimeException failure) {
                    ex.addSuppressed(failure);
                }
            }
            throw ex;
        }
    }

    /** Runs the connect, then those that waited, until none waits. */
    private void runFrom(Runnable connect) {
        Runnable next = connect;
        while (next != null) {
            try {
                next.run();
            }
            catch (RuntimeException | Error ex) {
                // A connect that failed unexpectedly ends its own thread's run, not the lane: the rest go on elsewhere.
                Runnable rest = nextOrIdle();
                if (rest != null) {
                    try {
                        handOver(rest);
                    }
                    catch (RejectedExecutionException stopped) {
                        ex.addSuppressed(stopped);
                    }
                }
                throw ex;
            }
            next = nextOrIdle();
        }
    }

    /** @return the next connect waiting, or {@code null}, the lane idle then */
    private synchronized @Nullable Runnable nextOrIdle() {
        Runnable next = this.waiting.poll();
        if (next == null) {
            this.running = false;
        }
        return next;
    }
}

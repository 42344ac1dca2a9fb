package dev.sockstate.server.engine.turn;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** One daemon thread for timed work: idle sweeps and the end of accept back-offs. */
public final class ServerScheduler {

    private final ScheduledThreadPoolExecutor executor;

    /** The thread the executor made last: its only one, which a stop waits for to end. */
    private volatile @Nullable Thread thread;

    /** @param threadName the name of its thread */
    public ServerScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            this.thread = thread;
            return thread;
        });
        this.executor.setRemoveOnCancelPolicy(true);
    }

    /**
     * @param task what to run once
     * @param delayMillis after how long
     * @return its future
     */
    public ScheduledFuture<?> schedule(Runnable task, long delayMillis) {
        return this.executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * @param task what to run again and again
     * @param periodMillis the pause between runs
     * @return its future
     */
    public ScheduledFuture<?> every(Runnable task, long periodMillis) {
        return this.executor.scheduleWithFixedDelay(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops the thread, waiting until the deadline for a task that runs, and for the thread to end (an
     * executor counts as terminated a moment before its thread has returned).
     * @param deadline when to stop waiting, in {@link System#nanoTime()}
     */
    public void shutdown(long deadline) {
        this.executor.shutdownNow();
        try {
            if (this.executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                Thread last = this.thread;
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (last != null && last != Thread.currentThread() && left > 0) {
                    last.join(left);
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}

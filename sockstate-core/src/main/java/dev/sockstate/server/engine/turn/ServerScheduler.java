package dev.sockstate.server.engine.turn;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** One daemon thread for timed work: idle sweeps and the end of accept back-offs. */
public final class ServerScheduler {

    private final ScheduledThreadPoolExecutor executor;

    /** @param threadName the name of its thread */
    public ServerScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
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
     * Stops the thread, waiting for a task that runs until the deadline.
     * @param deadline when to stop waiting, in {@link System#nanoTime()}
     */
    public void shutdown(long deadline) {
        this.executor.shutdownNow();
        try {
            this.executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.sockstate.server.engine;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** One daemon thread for timed work: idle sweeps and the end of accept back-offs. */
final class ServerScheduler {

    private final ScheduledThreadPoolExecutor executor;

    ServerScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            return thread;
        });
        this.executor.setRemoveOnCancelPolicy(true);
    }

    ScheduledFuture<?> schedule(Runnable task, long delayMillis) {
        return this.executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    ScheduledFuture<?> every(Runnable task, long periodMillis) {
        return this.executor.scheduleWithFixedDelay(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    void shutdown() {
        this.executor.shutdownNow();
        try {
            this.executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}

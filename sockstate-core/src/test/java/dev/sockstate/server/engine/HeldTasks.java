package dev.sockstate.server.engine;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A TLS task executor that a test can hold: tasks submitted while a gate is set wait, each on a
 * thread of its own, until the gate opens (at most ten seconds); the others run at once.
 */
final class HeldTasks implements Executor, AutoCloseable {

    private final ExecutorService threads = Executors.newCachedThreadPool((task) -> new Thread(task, "test-tls-task"));

    private volatile CountDownLatch gate;

    /** From now on, tasks wait until the latch reaches zero. */
    void holdUntil(CountDownLatch opening) {
        this.gate = opening;
    }

    @Override
    public void execute(Runnable task) {
        CountDownLatch held = this.gate;
        this.threads.execute(() -> {
            try {
                if (held != null && !held.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("The test never opened the gate");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            task.run();
        });
    }

    /** Waits until every task submitted so far has run. */
    void awaitDone() throws InterruptedException {
        this.threads.shutdown();
        if (!this.threads.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new AssertionError("TLS tasks still running after ten seconds");
        }
    }

    @Override
    public void close() {
        this.threads.shutdownNow();
    }
}

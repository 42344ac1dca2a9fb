package dev.sockstate.server.tls;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared pool that runs TLS engines' delegated tasks unless a listener names another executor:
 * a few daemon threads (half the processors, at least two), made when first needed and ended after
 * a minute without work, so a process that serves no TLS holds none.
 */
final class TaskPool {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private TaskPool() {
    }

    /** @return the pool, made on first use */
    static Executor shared() {
        return Holder.POOL;
    }

    private static final class Holder {

        static final ThreadPoolExecutor POOL = make();

        private static ThreadPoolExecutor make() {
            int threads = Math.max(2, Runtime.getRuntime().availableProcessors() / 2);
            ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                    (task) -> {
                        Thread thread = new Thread(task, "sockstate-tls-task-" + THREADS.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}

package dev.sockstate.server.engine;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A warning that may repeat with every bad peer or every refusal: logged at most once a second,
 * with how many happened since the last time, so that a flood of them cannot flood the log.
 */
final class BoundedLog {

    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final Logger logger;

    private final AtomicLong logged = new AtomicLong(System.nanoTime() - INTERVAL_NANOS);

    private final LongAdder sinceLogged = new LongAdder();

    BoundedLog(Logger logger) {
        this.logger = logger;
    }

    /**
     * Counts one occurrence and logs it if the last was logged a second ago or more.
     * @param message what happened
     * @param failure the failure behind it
     */
    void warn(String message, Throwable failure) {
        this.sinceLogged.increment();
        long last = this.logged.get();
        long now = System.nanoTime();
        if (now - last >= INTERVAL_NANOS && this.logged.compareAndSet(last, now)) {
            this.logger.log(Level.WARNING, message + " (" + this.sinceLogged.sumThenReset() + " since the last report)", failure);
        }
    }
}

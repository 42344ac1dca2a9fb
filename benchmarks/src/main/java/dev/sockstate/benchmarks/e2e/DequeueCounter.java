package dev.sockstate.benchmarks.e2e;

import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.observer.WorkerObserver;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/** Counts the runtime's dequeue calls by outcome, and the notifications and waiting time they brought. */
final class DequeueCounter implements ServerObserver {

    private final LongAdder[] calls = {new LongAdder(), new LongAdder(), new LongAdder()};

    private final LongAdder notifications = new LongAdder();

    private final LongAdder waitNanos = new LongAdder();

    @Override
    public WorkerObserver worker(String group, int worker) {
        return new WorkerObserver() {
            @Override
            public boolean timesDequeues() {
                return true;
            }

            @Override
            public void dequeued(int count, DequeueOutcome outcome, long waited) {
                DequeueCounter.this.calls[outcome.ordinal()].increment();
                DequeueCounter.this.notifications.add(count);
                DequeueCounter.this.waitNanos.add(waited);
            }
        };
    }

    @Override
    public String toString() {
        long notified = this.calls[DequeueOutcome.NOTIFIED.ordinal()].sum();
        long all = notified + this.calls[DequeueOutcome.TIMEOUT.ordinal()].sum() + this.calls[DequeueOutcome.WOKEN.ordinal()].sum();
        return String.format(Locale.ROOT, "dequeue calls %d (notified %d, woken %d, timed out %d), %.2f notifications per"
                + " notified call, %.1f µs waited per call", all, notified, this.calls[DequeueOutcome.WOKEN.ordinal()].sum(),
                this.calls[DequeueOutcome.TIMEOUT.ordinal()].sum(), (double) this.notifications.sum() / Math.max(1, notified),
                this.waitNanos.sum() / 1000.0 / Math.max(1, all));
    }
}

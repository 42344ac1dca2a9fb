package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.ListenerObserver;
import dev.sockstate.server.ServerObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Reports the runtime to Micrometer. Every meter is resolved once, when the server starts (per
 * listener, event, operation and outcome), so the hot path increments a counter it already holds.
 */
public class MicrometerServerObserver implements ServerObserver {

    private final MeterRegistry registry;

    private final Counter notified;

    private final Counter timedOut;

    private final Counter woken;

    private final DistributionSummary batch;

    private final Timer wait;

    /** @param registry where the meters go */
    public MicrometerServerObserver(MeterRegistry registry) {
        this.registry = registry;
        this.notified = dequeues(registry, "notified");
        this.timedOut = dequeues(registry, "timeout");
        this.woken = dequeues(registry, "woken");
        this.batch = DistributionSummary.builder("sockstate.dequeue.batch").description("Notifications per dequeue call")
                .baseUnit("notifications").register(registry);
        this.wait = Timer.builder("sockstate.dequeue.wait").description("Time blocked waiting for notifications").register(registry);
    }

    private static Counter dequeues(MeterRegistry registry, String outcome) {
        return Counter.builder("sockstate.dequeues").description("Dequeue calls").tag("outcome", outcome).register(registry);
    }

    @Override
    public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
        return new MicrometerListenerObserver(this.registry, listener, active);
    }

    @Override
    public boolean timesDequeues() {
        return true;
    }

    @Override
    public void dequeued(String group, int notifications, DequeueOutcome outcome, long waitNanos) {
        switch (outcome) {
            case NOTIFIED -> this.notified.increment();
            case TIMEOUT -> this.timedOut.increment();
            default -> this.woken.increment();
        }
        this.batch.record(notifications);
        this.wait.record(waitNanos, TimeUnit.NANOSECONDS);
    }
}

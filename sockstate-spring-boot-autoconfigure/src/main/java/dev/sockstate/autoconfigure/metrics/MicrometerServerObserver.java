package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.observer.WorkerObserver;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * Reports the runtime to Micrometer. Every meter is resolved once, when the server starts (per
 * listener or client, event, operation and outcome, and per worker), so that the hot path touches only what
 * it already holds: dequeue counts and times accumulate in each worker's own fields and are summed
 * when read. The meters of a listener or a worker are registered once for the life of the registry
 * and stay true across restarts of the server (a context stopped and started again).
 */
public class MicrometerServerObserver implements ServerObserver {

    private final MeterRegistry registry;

    private final List<MicrometerWorkerObserver> workers = new CopyOnWriteArrayList<>();

    private final Map<String, MicrometerWorkerObserver> workerObservers = new ConcurrentHashMap<>();

    /** The groups whose deaths counter is registered. */
    private final Set<String> groups = ConcurrentHashMap.newKeySet();

    private final Map<String, MicrometerListenerObserver> listeners = new ConcurrentHashMap<>();

    private final Map<String, MicrometerClientObserver> clients = new ConcurrentHashMap<>();

    /** Whether handler time goes to a {@code Timer} even when its snapshot shows no distribution. */
    private final boolean handlerTimer;

    /** @param registry where the meters go */
    public MicrometerServerObserver(MeterRegistry registry) {
        this(registry, false);
    }

    /**
     * @param registry where the meters go
     * @param handlerTimer whether handler time always goes to a {@code Timer}: the configuration asks for
     * a distribution of {@code sockstate.handler} whose snapshot shows no buckets (an exponential
     * histogram, say); otherwise it does when the timer's snapshot shows a distribution
     */
    public MicrometerServerObserver(MeterRegistry registry, boolean handlerTimer) {
        this.registry = registry;
        this.handlerTimer = handlerTimer;
        for (DequeueOutcome outcome : DequeueOutcome.values()) {
            FunctionCounter.builder("sockstate.dequeues", this.workers, (workers) -> sum(workers, (worker) -> worker.dequeues(outcome)))
                    .description("Dequeue calls").tag("outcome", outcome.name().toLowerCase(Locale.ROOT)).register(registry);
        }
        FunctionTimer.builder("sockstate.dequeue.wait", this.workers, (workers) -> sum(workers, MicrometerWorkerObserver::calls),
                (workers) -> sum(workers, MicrometerWorkerObserver::waitNanos), TimeUnit.NANOSECONDS)
                .description("Time blocked waiting for notifications").register(registry);
        // A distribution summary of count and total, read from the workers' own sums.
        Meter.builder("sockstate.dequeue.batch", Meter.Type.DISTRIBUTION_SUMMARY,
                List.of(new Measurement(() -> sum(this.workers, MicrometerWorkerObserver::calls), Statistic.COUNT),
                        new Measurement(() -> sum(this.workers, MicrometerWorkerObserver::notifications), Statistic.TOTAL)))
                .description("Notifications per dequeue call").baseUnit("notifications").register(registry);
    }

    private static long sum(List<MicrometerWorkerObserver> workers, ToLongFunction<MicrometerWorkerObserver> value) {
        long total = 0;
        for (MicrometerWorkerObserver worker : workers) {
            total += value.applyAsLong(worker);
        }
        return total;
    }

    @Override
    public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
        // One observer per listener for the life of the registry: after a restart of the server its
        // meters read the new listener's counts and go on adding up, instead of staying bound to the old.
        MicrometerListenerObserver observer = this.listeners.computeIfAbsent(listener,
                (name) -> (protocol == Protocol.UDP) ? MicrometerListenerObserver.datagrams(this.registry, name, this.handlerTimer)
                        : new MicrometerListenerObserver(this.registry, name, this.handlerTimer));
        observer.countsOf(active);
        return observer;
    }

    /** A listener removed from the running server: its meters go, and one added later under its name starts afresh. */
    @Override
    public void listenerRemoved(String listener) {
        MicrometerListenerObserver observer = this.listeners.remove(listener);
        if (observer != null) {
            observer.retire();
        }
        removeMeters("listener", listener);
    }

    /** A client removed from the running server: its meters go, as a listener's. */
    @Override
    public void clientRemoved(String client) {
        MicrometerClientObserver observer = this.clients.remove(client);
        if (observer != null) {
            observer.retire();
        }
        removeMeters("client", client);
    }

    private void removeMeters(String tag, String name) {
        for (Meter meter : this.registry.getMeters()) {
            if (meter.getId().getName().startsWith("sockstate.") && name.equals(meter.getId().getTag(tag))) {
                this.registry.remove(meter);
            }
        }
    }

    @Override
    public ListenerObserver client(String client, ActiveCounts active) {
        // One per client for the life of the registry, as for listeners.
        MicrometerClientObserver observer = this.clients.computeIfAbsent(client,
                (name) -> new MicrometerClientObserver(this.registry, name, this.handlerTimer));
        observer.countsOf(active);
        return observer;
    }

    @Override
    public WorkerObserver worker(String group, int worker) {
        // One per worker for the life of the registry, as for listeners: its counts go on across restarts.
        return this.workerObservers.computeIfAbsent(group + "#" + worker, (key) -> {
            MicrometerWorkerObserver observer = new MicrometerWorkerObserver(group);
            this.workers.add(observer);
            if (this.groups.add(group)) {
                // One counter a group, for all its workers: registered again, Micrometer would warn and ignore it.
                FunctionCounter.builder("sockstate.workers.died", this.workers,
                        (workers) -> sum(workers, (each) -> each.group().equals(group) ? each.deaths() : 0))
                        .description("Worker threads that died").tag("group", group).register(this.registry);
            }
            return observer;
        });
    }
}

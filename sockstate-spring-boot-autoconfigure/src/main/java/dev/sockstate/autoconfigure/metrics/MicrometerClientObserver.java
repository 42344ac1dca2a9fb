package dev.sockstate.autoconfigure.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One outbound client's meters: its connections' traffic as a listener's, tagged {@code client}, and
 * its connects and requests. Resolved when it first starts and kept across restarts, as a listener's.
 */
final class MicrometerClientObserver extends MicrometerListenerObserver {

    private static final List<String> CONNECT_OUTCOMES = List.of("connected", "refused", "timeout", "unresolved", "tls", "failed");

    private final MeterRegistry registry;

    private final String client;

    private final Map<String, Counter> connects = new ConcurrentHashMap<>();

    /** Each request outcome's count and time, added to on the hot path and read by a function timer. */
    private final RequestTimes success = new RequestTimes();

    private final RequestTimes failed = new RequestTimes();

    private final RequestTimes timedOut = new RequestTimes();

    /**
     * @param registry where the meters go
     * @param client the client's name
     * @param handlerTimer whether handler time goes to a {@code Timer} whatever its snapshot shows
     */
    MicrometerClientObserver(MeterRegistry registry, String client, boolean handlerTimer) {
        super(registry, "client", client, handlerTimer);
        this.registry = registry;
        this.client = client;
        CONNECT_OUTCOMES.forEach(this::connects);
        requests("success", this.success);
        requests("failed", this.failed);
        requests("timeout", this.timedOut);
        Gauge.builder("sockstate.client.connections", this, (observer) -> observer.active.connections())
                .description("The client's open connections").tag("client", client).register(registry);
        Gauge.builder("sockstate.client.requests.pending", this, (observer) -> observer.active.pendingRequests())
                .description("Requests sent and not yet answered").tag("client", client).register(registry);
    }

    private Counter connects(String outcome) {
        return this.connects.computeIfAbsent(outcome, (name) -> Counter.builder("sockstate.client.connects")
                .description("Connects the client made, by how they ended").tag("client", this.client).tag("outcome", name)
                .register(this.registry));
    }

    private void requests(String outcome, RequestTimes times) {
        FunctionTimer.builder("sockstate.client.requests", times, (counted) -> counted.count.sum(), (counted) -> counted.nanos.sum(),
                TimeUnit.NANOSECONDS).description("Requests from their send to their reply, failure or timeout")
                .tag("client", this.client).tag("outcome", outcome).register(this.registry);
    }

    @Override
    public void connect(String outcome) {
        connects(outcome).increment();
    }

    @Override
    public void request(String outcome, long nanos) {
        RequestTimes times = switch (outcome) {
            case "success" -> this.success;
            case "timeout" -> this.timedOut;
            default -> this.failed;
        };
        times.count.increment();
        times.nanos.add(nanos);
    }

    /** The requests answered in one read come counted together: their outcome's meter is a function timer. */
    @Override
    public boolean sumsRequestTimes() {
        return true;
    }

    @Override
    public void requests(int count, long nanos) {
        this.success.count.add(count);
        this.success.nanos.add(nanos);
    }

    /** A request outcome's count and total time: two adds a request, as the handler timers do. */
    private static final class RequestTimes {

        final LongAdder count = new LongAdder();

        final LongAdder nanos = new LongAdder();
    }
}

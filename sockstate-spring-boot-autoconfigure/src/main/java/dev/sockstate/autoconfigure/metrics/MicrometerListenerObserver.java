package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.port.Events;
import dev.sockstate.port.Operation;
import dev.sockstate.server.admission.Refusal;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver.ActiveCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.noop.NoopCounter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * One listener's meters, all tagged with the listener's name and resolved when it first starts; the
 * same object serves the listener of that name after a restart, its gauges reading the new counts.
 * A client's connections have the same meters, tagged {@code client} instead
 * ({@link MicrometerClientObserver}), but for those of accepting and of datagrams.
 */
class MicrometerListenerObserver implements ListenerObserver {

    private static final String HANDLER = "sockstate.handler";

    private static final String HANDLER_DESCRIPTION = "Time spent in handlers";

    private final Counter[] registrations = new Counter[6];

    private final Counter in;

    private final Counter out;

    private final Counter hangup;

    private final Counter err;

    private final Counter remove;

    private final HandlerTime handlerSuccess;

    private final HandlerTime handlerError;

    private final Counter accepted;

    /** Connections refused as they were accepted, by {@link Refusal} ordinal. */
    private final Counter[] rejected = new Counter[Refusal.values().length];

    private final Counter handlerRefused;

    private final Counter frameRejected;

    private final Counter stoppedServing;

    private final Counter received;

    private final Counter sent;

    private final Counter datagramsDropped;

    /** A UDP listener's receive calls that took datagrams, and the datagrams they took. */
    private final LongAdder receiveCalls = new LongAdder();

    private final LongAdder datagramsReceived = new LongAdder();

    private final LongAdder datagramsSent = new LongAdder();

    private final LongAdder datagramsOverflowed = new LongAdder();

    private final Counter idleClosed;

    private final Counter readPaused;

    private final Counter acceptBackoffs;

    private final MeterRegistry registry;

    /** The tag that names what the meters count: {@code listener}, or {@code client}. */
    private final String tag;

    private final String listener;

    /** PROXY protocol headers by outcome and reason, registered as they first happen (a listener without the protocol has none). */
    private final Map<String, Counter> proxyHeaders = new ConcurrentHashMap<>();

    /** TLS handshakes by outcome and reason, registered as they first happen (a plaintext listener has none). */
    private final Map<String, Counter> handshakes = new ConcurrentHashMap<>();

    /** Connections served in plaintext beside TLS, registered with the first. */
    private volatile @Nullable Counter plaintext;

    private volatile @Nullable Timer handshakeTime;

    /** Time throttled by traffic shaping, reading and writing, registered as it first happens (an unshaped listener has none). */
    private volatile @Nullable Counter throttledReading;

    private volatile @Nullable Counter throttledWriting;

    /** A client's heartbeat: pings sent and connections aborted, counted from the first, whose meters it registers. */
    private final LongAdder heartbeatPings = new LongAdder();

    private final LongAdder heartbeatTimeouts = new LongAdder();

    private volatile boolean heartbeatMeters;

    /** Whether its listener or client was removed from the running server: no meter is registered any more. */
    private volatile boolean retired;

    /** The running listener's counts; read by the gauges, replaced when the server starts again. */
    volatile ActiveCounts active = NO_COUNTS;

    private static final ActiveCounts NO_COUNTS = new ActiveCounts() {
        @Override
        public int connections() {
            return 0;
        }

        @Override
        public int registrations() {
            return 0;
        }
    };

    /**
     * @param registry where the meters go
     * @param listener the listener's name
     * @param handlerTimer whether handler time goes to a {@code Timer} whatever its snapshot shows
     */
    MicrometerListenerObserver(MeterRegistry registry, String listener, boolean handlerTimer) {
        this(registry, "listener", listener, handlerTimer);
    }

    /**
     * @param registry where the meters go
     * @param listener the UDP listener's name
     * @param handlerTimer whether handler time goes to a {@code Timer} whatever its snapshot shows
     * @return an observer with the meters of datagrams besides a listener's
     */
    static MicrometerListenerObserver datagrams(MeterRegistry registry, String listener, boolean handlerTimer) {
        MicrometerListenerObserver observer = new MicrometerListenerObserver(registry, listener, handlerTimer);
        // A distribution summary of count and total, read from the observer's own sums, as the dequeue batch's.
        Meter.builder("sockstate.datagrams.batch", Meter.Type.DISTRIBUTION_SUMMARY,
                List.of(new Measurement(observer.receiveCalls::sum, Statistic.COUNT),
                        new Measurement(observer.datagramsReceived::sum, Statistic.TOTAL)))
                .description("Datagrams per receive call of a UDP listener (recvmmsg on epoll; one a call elsewhere)").baseUnit("datagrams")
                .tag("listener", listener).register(registry);
        FunctionCounter.builder("sockstate.datagrams.received", observer.datagramsReceived, LongAdder::sum)
                .description("Datagrams received").baseUnit("datagrams").tag("listener", listener).register(registry);
        FunctionCounter.builder("sockstate.datagrams.sent", observer.datagramsSent, LongAdder::sum)
                .description("Datagrams sent").baseUnit("datagrams").tag("listener", listener).register(registry);
        FunctionCounter.builder("sockstate.datagrams.overflowed", observer.datagramsOverflowed, LongAdder::sum)
                .description("Datagrams the system dropped at the listener's socket, mostly because its receive buffer was full"
                        + " (reported on epoll, with the next datagram received)")
                .baseUnit("datagrams").tag("listener", listener).register(registry);
        return observer;
    }

    /**
     * @param registry where the meters go
     * @param tag the tag that names what the meters count: {@code listener}, or {@code client} for a
     * client's connections, which have no meters of accepting or of datagrams
     * @param listener the listener's or the client's name
     * @param handlerTimer whether handler time goes to a {@code Timer} whatever its snapshot shows
     */
    MicrometerListenerObserver(MeterRegistry registry, String tag, String listener, boolean handlerTimer) {
        this.registry = registry;
        this.tag = tag;
        this.listener = listener;
        boolean accepts = tag.equals("listener");
        for (Operation operation : Operation.values()) {
            for (boolean success : new boolean[] { true, false }) {
                this.registrations[index(operation, success)] = Counter.builder("sockstate.registrations")
                        .description("Registration changes applied to the port").tag(tag, listener)
                        .tag("operation", operation.name().toLowerCase(java.util.Locale.ROOT))
                        .tag("result", success ? "success" : "failure").register(registry);
            }
        }
        Gauge.builder("sockstate.registrations.active", this, (observer) -> observer.active.registrations())
                .description("Registrations on the port: the listener's own and its connections'").tag(tag, listener)
                .register(registry);
        if (accepts) {
            // A client's open connections are sockstate.client.connections.
            Gauge.builder("sockstate.connections.active", this, (observer) -> observer.active.connections()).description("Open connections")
                    .tag(tag, listener).register(registry);
        }
        this.in = notifications(registry, tag, listener, "in");
        this.out = notifications(registry, tag, listener, "out");
        this.hangup = notifications(registry, tag, listener, "hangup");
        this.err = notifications(registry, tag, listener, "err");
        this.remove = notifications(registry, tag, listener, "remove");
        this.handlerSuccess = handler(registry, tag, listener, "success", handlerTimer);
        this.handlerError = handler(registry, tag, listener, "error", handlerTimer);
        this.accepted = listenerOnly(accepts, "sockstate.connections.accepted", "Connections accepted");
        for (Refusal reason : Refusal.values()) {
            this.rejected[reason.ordinal()] = listenerOnly(accepts, "sockstate.connections.rejected",
                    "Connections closed at once as they were accepted: the listener at its maximum, or refused by its admission's rules",
                    Tags.of("reason", reason.tag()));
        }
        this.handlerRefused = Counter.builder("sockstate.handler.refused")
                .description("Handler calls the handler executor refused: the connection failed, or the datagram was dropped")
                .tag(tag, listener).register(registry);
        this.frameRejected = Counter.builder("sockstate.frames.rejected")
                .description("Frames refused: bytes that did not frame (over max-frame-size, a malformed length) or did not read"
                        + " as the handler's message type; the connection was closed, or the datagram dropped")
                .tag(tag, listener).register(registry);
        this.stoppedServing = listenerOnly(accepts, "sockstate.listeners.failed",
                "Times the listener's socket closed for good while the server ran");
        this.received = bytes(registry, tag, listener, "sockstate.data.received", "Bytes received");
        this.sent = bytes(registry, tag, listener, "sockstate.data.sent", "Bytes sent");
        this.datagramsDropped = listenerOnly(accepts, "sockstate.datagrams.dropped",
                "Datagrams not sent: the socket's buffer was full, or the send failed");
        this.idleClosed = Counter.builder("sockstate.connections.idle.closed")
                .description("Connections closed because they went without traffic for the idle timeout").tag(tag, listener)
                .register(registry);
        this.readPaused = Counter.builder("sockstate.connections.paused")
                .description("Times a connection stopped reading because its queued writes passed max-pending-write-bytes")
                .tag(tag, listener).register(registry);
        this.acceptBackoffs = listenerOnly(accepts, "sockstate.accept.backoffs",
                "Times the listener paused accepting because the process was out of descriptors or memory");
        Gauge.builder("sockstate.data.pending", this, (observer) -> observer.active.pendingWriteBytes())
                .description("Bytes written and waiting in the connections' queues for their sockets").baseUnit("bytes")
                .tag(tag, listener).register(registry);
        Gauge.builder("sockstate.frames.unfinished", this, (observer) -> observer.active.unfinishedFrameBytes())
                .description("Bytes the connections' unfinished frames hold, at most the framing's max-unfinished-bytes")
                .baseUnit("bytes").tag(tag, listener).register(registry);
        Gauge.builder("sockstate.buffers.pooled", this, (observer) -> observer.active.pooledBufferBytes())
                .description("Bytes of the direct buffers TLS and framing made to lend the connections' turns, lent or idle;"
                        + " bounded by their pools, not by the connections")
                .baseUnit("bytes").tag(tag, listener).register(registry);
        Gauge.builder("sockstate.tls.engines.native", this, (observer) -> observer.active.nativeTlsEngines())
                .description("Native TLS engines (OpenSSL's) the connections hold, each with its native memory, freed as its"
                        + " connection ends; 0 on the JDK's engine")
                .tag(tag, listener).register(registry);
    }

    /** @param active the counts of the listener that now runs under this name */
    void countsOf(ActiveCounts active) {
        this.active = active;
    }

    /** Its listener or client was removed from the running server: what happens late to its connections registers no meter. */
    void retire() {
        this.retired = true;
    }

    /** The listener is gone with its server: the gauges read nothing, and hold on to nothing of it. */
    @Override
    public void closed() {
        this.active = NO_COUNTS;
    }

    private static int index(Operation operation, boolean success) {
        return operation.ordinal() * 2 + (success ? 0 : 1);
    }

    /**
     * @return the counter of what only a listener does (accept, send datagrams, fail for good), or for
     * a client's connections, which never do, one counted nowhere and never registered
     */
    private Counter listenerOnly(boolean accepts, String name, String description) {
        return listenerOnly(accepts, name, description, Tags.empty());
    }

    private Counter listenerOnly(boolean accepts, String name, String description, Tags tags) {
        if (!accepts) {
            return new NoopCounter(new Meter.Id(name, tags, null, description, Meter.Type.COUNTER));
        }
        return Counter.builder(name).description(description).tag(this.tag, this.listener).tags(tags).register(this.registry);
    }

    private static Counter notifications(MeterRegistry registry, String tag, String listener, String event) {
        return Counter.builder("sockstate.notifications").description("Notifications dequeued").tag(tag, listener)
                .tag("event", event).register(registry);
    }

    /**
     * The handler time of one outcome: a {@link Timer} when the registry's configuration asks for a
     * distribution of it ({@code management.metrics.distribution.percentiles-histogram},
     * {@code .percentiles} or {@code .slo} for {@code sockstate.handler}, which its snapshot shows, or
     * {@code handlerTimer}), else a function timer over two adders, which costs less on every call.
     */
    private static HandlerTime handler(MeterRegistry registry, String tag, String listener, String outcome, boolean handlerTimer) {
        Timer timer = Timer.builder(HANDLER).description(HANDLER_DESCRIPTION).tag(tag, listener).tag("outcome", outcome)
                .register(registry);
        HistogramSnapshot snapshot = timer.takeSnapshot();
        if (handlerTimer || snapshot.histogramCounts().length > 0 || snapshot.percentileValues().length > 0) {
            return new HandlerTime(timer);
        }
        registry.remove(timer);
        HandlerTime time = new HandlerTime(null);
        FunctionTimer.builder(HANDLER, time, (handled) -> handled.count.sum(), (handled) -> handled.nanos.sum(),
                TimeUnit.NANOSECONDS).description(HANDLER_DESCRIPTION).tag(tag, listener).tag("outcome", outcome)
                .register(registry);
        return time;
    }

    private static Counter bytes(MeterRegistry registry, String tag, String listener, String name, String description) {
        return Counter.builder(name).description(description).baseUnit("bytes").tag(tag, listener).register(registry);
    }

    @Override
    public void registrationChanged(Operation operation, boolean success) {
        this.registrations[index(operation, success)].increment();
    }

    @Override
    public void notification(int events) {
        if ((events & Events.IN) != 0) {
            this.in.increment();
        }
        if ((events & Events.OUT) != 0) {
            this.out.increment();
        }
        if ((events & Events.HANGUP) != 0) {
            this.hangup.increment();
        }
        if ((events & Events.ERR) != 0) {
            this.err.increment();
        }
        if ((events & Events.REMOVE) != 0) {
            this.remove.increment();
        }
    }

    @Override
    public boolean timesHandlers() {
        return true;
    }

    /** Handler times are summed over each read's calls (each receive's, for datagrams) unless a distribution of single calls was asked for. */
    @Override
    public boolean sumsHandlerTimes() {
        return this.handlerSuccess.timer == null && this.handlerError.timer == null;
    }

    @Override
    public void handled(int calls, long nanos) {
        HandlerTime time = this.handlerSuccess;
        if (time.timer != null) {
            ListenerObserver.super.handled(calls, nanos);
            return;
        }
        time.count.add(calls);
        time.nanos.add(nanos);
    }

    @Override
    public void handled(long nanos, boolean failed) {
        HandlerTime time = failed ? this.handlerError : this.handlerSuccess;
        if (time.timer != null) {
            time.timer.record(nanos, TimeUnit.NANOSECONDS);
            return;
        }
        time.count.increment();
        time.nanos.add(nanos);
    }

    @Override
    public void handshake(boolean success, @Nullable String reason, long nanos) {
        String key = success ? "success" : (reason != null) ? reason : "unknown";
        this.handshakes.computeIfAbsent(key, (name) -> Counter.builder("sockstate.tls.handshakes")
                .description("TLS handshakes: those that succeeded, and those that failed by reason").tag(this.tag, this.listener)
                .tag("outcome", success ? "success" : "failure").tag("reason", success ? "none" : name).register(this.registry))
                .increment();
        if (!success) {
            return;
        }
        Timer time = this.handshakeTime;
        if (time == null) {
            time = Timer.builder("sockstate.tls.handshake").description("Time from a TLS connection's accept to the end of its successful handshake")
                    .tag(this.tag, this.listener).register(this.registry);
            this.handshakeTime = time;
        }
        time.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void plaintextServed() {
        Counter plaintext = this.plaintext;
        if (plaintext == null) {
            if (this.retired) {
                // (No meter is registered once the listener is gone.)
                return;
            }
            plaintext = Counter.builder("sockstate.tls.plaintext")
                    .description("Connections of a listener serving plaintext beside TLS that were served in plaintext")
                    .tag(this.tag, this.listener).register(this.registry);
            this.plaintext = plaintext;
        }
        plaintext.increment();
    }

    @Override
    public void proxyHeader(boolean accepted, @Nullable String reason) {
        String key = accepted ? "accepted" : (reason != null) ? reason : "unknown";
        this.proxyHeaders.computeIfAbsent(key, (name) -> Counter.builder("sockstate.proxy.headers")
                .description("PROXY protocol headers: those read, and those refused (closing their connections) by reason")
                .tag(this.tag, this.listener).tag("outcome", accepted ? "accepted" : "refused").tag("reason", accepted ? "none" : name)
                .register(this.registry)).increment();
    }

    @Override
    public void accepted() {
        this.accepted.increment();
    }

    @Override
    public void rejected(Refusal reason) {
        this.rejected[reason.ordinal()].increment();
    }

    @Override
    public void stoppedServing() {
        this.stoppedServing.increment();
    }

    @Override
    public void handlerRefused() {
        this.handlerRefused.increment();
    }

    @Override
    public void frameRejected() {
        this.frameRejected.increment();
    }

    @Override
    public void received(int bytes) {
        this.received.increment(bytes);
    }

    @Override
    public void sent(int bytes) {
        this.sent.increment(bytes);
    }

    @Override
    public void throttled(boolean read, long nanos) {
        Counter counter = read ? this.throttledReading : this.throttledWriting;
        if (counter == null) {
            if (this.retired) {
                return;
            }
            counter = Counter.builder("sockstate.connections.throttled").baseUnit("seconds")
                    .description("Time connections were held back by traffic shaping, summed over the connections").tag(this.tag, this.listener)
                    .tag("direction", read ? "read" : "write").register(this.registry);
            if (read) {
                this.throttledReading = counter;
            }
            else {
                this.throttledWriting = counter;
            }
        }
        counter.increment(nanos / 1e9);
    }

    @Override
    public void heartbeat(boolean timedOut) {
        if (!this.heartbeatMeters && !this.retired) {
            synchronized (this) {
                if (!this.heartbeatMeters) {
                    // As a listener's heartbeat is counted (HeartbeatMeters), tagged by client.
                    FunctionCounter.builder("sockstate.heartbeats", this.heartbeatPings, LongAdder::sum)
                            .description(HeartbeatMeters.DESCRIPTION)
                            .tag(this.tag, this.listener).tag("outcome", "sent").register(this.registry);
                    FunctionCounter.builder("sockstate.heartbeats", this.heartbeatTimeouts, LongAdder::sum)
                            .description(HeartbeatMeters.DESCRIPTION)
                            .tag(this.tag, this.listener).tag("outcome", "timed-out").register(this.registry);
                    this.heartbeatMeters = true;
                }
            }
        }
        (timedOut ? this.heartbeatTimeouts : this.heartbeatPings).increment();
    }

    @Override
    public void receivedDatagrams(int datagrams) {
        this.receiveCalls.increment();
        this.datagramsReceived.add(datagrams);
    }

    @Override
    public void sentDatagrams(int datagrams) {
        this.datagramsSent.add(datagrams);
    }

    @Override
    public void datagramsOverflowed(long datagrams) {
        this.datagramsOverflowed.add(datagrams);
    }

    @Override
    public void datagramDropped() {
        this.datagramsDropped.increment();
    }

    @Override
    public void idleClosed() {
        this.idleClosed.increment();
    }

    @Override
    public void readPaused() {
        this.readPaused.increment();
    }

    @Override
    public void acceptBackedOff() {
        this.acceptBackoffs.increment();
    }

    /** Handler calls and their time: recorded by a timer with a distribution, else added up by whichever thread ran them. */
    private static final class HandlerTime {

        final @Nullable Timer timer;

        final LongAdder count = new LongAdder();

        final LongAdder nanos = new LongAdder();

        HandlerTime(@Nullable Timer timer) {
            this.timer = timer;
        }
    }
}

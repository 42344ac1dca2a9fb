package dev.sockstate.benchmarks;

import dev.sockstate.autoconfigure.metrics.MicrometerServerObserver;
import dev.sockstate.port.Events;
import dev.sockstate.port.Operation;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.observer.WorkerObserver;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What each metrics call on the hot path costs with the Micrometer observer on a Prometheus
 * registry: the calls one echoed message makes ({@code perMessage}) and their parts.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ObserverCallBenchmark {

    private ServerObserver server;

    private ListenerObserver listener;

    private WorkerObserver worker;

    @Setup
    public void setUp() {
        this.server = new MicrometerServerObserver(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        this.worker = this.server.worker("default", 1);
        this.listener = this.server.listener("echo", Protocol.TCP, new ServerObserver.ActiveCounts() {
            @Override
            public int connections() {
                return 1;
            }

            @Override
            public int registrations() {
                return 2;
            }
        });
    }

    @Benchmark
    public void notification() {
        this.listener.notification(Events.IN);
    }

    @Benchmark
    public void handled() {
        this.listener.handled(1234, false);
    }

    @Benchmark
    public void bytes() {
        this.listener.received(64);
    }

    @Benchmark
    public void registration() {
        this.listener.registrationChanged(Operation.ENABLE, true);
    }

    @Benchmark
    public void dequeued() {
        this.worker.dequeued(1, ServerObserver.DequeueOutcome.NOTIFIED, 5678);
    }

    @Benchmark
    public long clockPair() {
        long start = System.nanoTime();
        return System.nanoTime() - start;
    }

    @Benchmark
    public void perMessage() {
        long start = System.nanoTime();
        this.worker.dequeued(1, ServerObserver.DequeueOutcome.NOTIFIED, System.nanoTime() - start);
        this.listener.notification(Events.IN);
        this.listener.received(64);
        long handler = System.nanoTime();
        this.listener.handled(System.nanoTime() - handler, false);
        this.listener.sent(64);
        this.listener.registrationChanged(Operation.ENABLE, true);
    }
}

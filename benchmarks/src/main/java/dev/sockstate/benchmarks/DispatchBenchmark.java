package dev.sockstate.benchmarks;

import dev.sockstate.port.Backends;
import dev.sockstate.server.engine.DispatchFixture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A batch of notifications dispatched through the runtime's own worker logic: each looked up by
 * key in the socket table, claimed through its state word, handled, and let go (the exclusive edge
 * mode's path: a persistent registration whose filter does not change needs no system call to be
 * let go). The sockets do no I/O, so this is the runtime's own cost per notification; run with
 * {@code -prof gc} for the allocation. The engine is reached through {@link DispatchFixture}, from
 * the core's test jar.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DispatchBenchmark {

    static final int BATCH = 64;

    private DispatchFixture fixture;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        this.fixture = new DispatchFixture(Backends.select("auto").sockets(), BATCH);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        this.fixture.close();
        if (this.fixture.handled() == 0) {
            throw new IllegalStateException("No notification reached its socket");
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int dispatchExclusiveBatch() {
        return this.fixture.dispatch();
    }
}

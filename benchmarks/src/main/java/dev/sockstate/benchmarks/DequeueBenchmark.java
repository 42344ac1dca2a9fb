package dev.sockstate.benchmarks;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.Events;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The dequeue path: a batch of notifications taken from the port and dispatched by key and events.
 * Every socket has an unread byte, so a level-triggered registration stays ready and each call
 * returns a full batch without any other I/O. Scores are per notification; run with {@code -prof gc}
 * to see the allocation per notification ({@code gc.alloc.rate.norm}).
 * <ul>
 * <li>{@code dequeuePersistent}: level persistent, only the dequeue (the poll-replacement loop);</li>
 * <li>{@code rearmAndDequeueOneShot}: level one-shot, the re-arms of the last batch sent in the same
 * call that dequeues the next (the multi-threaded server's loop).</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DequeueBenchmark {

    static final int BATCH = 64;

    @Param("64")
    int sockets;

    private LoopbackConnections persistentConnections;

    private LoopbackConnections oneShotConnections;

    private NotificationPort persistentPort;

    private NotificationPort oneShotPort;

    private NotificationBatch notifications;

    private RegistrationBatch rearms;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Backend backend = Backends.select("auto");
        this.persistentConnections = new LoopbackConnections(backend.sockets(), this.sockets);
        this.oneShotConnections = new LoopbackConnections(backend.sockets(), this.sockets);
        this.persistentPort = register(backend.openPort(), this.persistentConnections, Trigger.LEVEL_PERSISTENT);
        this.oneShotPort = register(backend.openPort(), this.oneShotConnections, Trigger.LEVEL_ONESHOT);
        this.notifications = new NotificationBatch(BATCH);
        this.rearms = new RegistrationBatch(BATCH);
    }

    private static NotificationPort register(NotificationPort port, LoopbackConnections connections, Trigger trigger)
            throws Exception {
        RegistrationBatch changes = new RegistrationBatch(connections.size());
        for (int i = 0; i < connections.size(); i++) {
            changes.enable(connections.handle(i), i, Events.IN, trigger);
        }
        port.apply(changes);
        for (int i = 0; i < changes.size(); i++) {
            if (changes.failed(i)) {
                throw changes.failure(i, "benchmark setup");
            }
        }
        return port;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        this.persistentPort.close();
        this.oneShotPort.close();
        this.persistentConnections.close();
        this.oneShotConnections.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void dequeuePersistent(Blackhole blackhole) throws Exception {
        int count = this.persistentPort.dequeue(this.notifications, 0);
        dispatch(count, blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rearmAndDequeueOneShot(Blackhole blackhole) throws Exception {
        int count = this.oneShotPort.process(this.rearms, this.notifications, 0);
        this.rearms.clear();
        for (int i = 0; i < count; i++) {
            long key = this.notifications.key(i);
            blackhole.consume(this.notifications.events(i));
            this.rearms.enable(this.oneShotConnections.handle((int) key), key, Events.IN, Trigger.LEVEL_ONESHOT);
        }
    }

    private void dispatch(int count, Blackhole blackhole) {
        for (int i = 0; i < count; i++) {
            blackhole.consume(this.notifications.key(i));
            blackhole.consume(this.notifications.events(i));
        }
    }
}

package dev.sockstate.server;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.Events;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.Trigger;
import java.util.List;
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
 * key in the registration table, claimed through its state word, handled, and let go (the
 * exclusive edge mode's path: a persistent registration whose filter does not change needs no
 * system call to be let go). The handler does no I/O, so this is the runtime's own cost per
 * notification; run with {@code -prof gc} for the allocation. In package {@code dev.sockstate.server}
 * to reach the package-private worker.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DispatchBenchmark {

    static final int BATCH = 64;

    private PortGroup group;

    private Worker worker;

    private CountingRegistration[] registrations;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Backend backend = Backends.select("auto");
        WorkerGroupSettings settings = WorkerGroupSettings.of("bench", 1);
        RegistrationTable table = new RegistrationTable(BATCH + 16);
        this.group = new PortGroup(settings, List.of(backend.openPort()), backend.sockets(), table, ServerObserver.NONE);
        this.worker = new Worker(this.group, this.group.portOfWorker(0), 1, 512);
        this.registrations = new CountingRegistration[BATCH];
        NotificationBatch notifications = this.worker.notifications();
        for (int i = 0; i < BATCH; i++) {
            this.registrations[i] = new CountingRegistration(this.group);
            table.add(this.registrations[i]);
            notifications.setNotification(i, this.registrations[i].key, Events.IN);
        }
        notifications.setSize(BATCH);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        this.group.closePorts();
        long handled = 0;
        for (CountingRegistration registration : this.registrations) {
            handled += registration.handled;
        }
        if (handled == 0) {
            throw new IllegalStateException("No notification reached its registration");
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int dispatchExclusiveBatch() {
        return this.worker.dispatch(BATCH);
    }

    /** A persistent registration that counts what it is handed and never changes its filter. */
    static final class CountingRegistration extends Registration {

        long handled;

        CountingRegistration(PortGroup group) {
            super(group, 0, false);
        }

        @Override
        Trigger trigger() {
            return Trigger.EDGE_PERSISTENT;
        }

        @Override
        ListenerObserver observer() {
            return ListenerObserver.NONE;
        }

        @Override
        boolean handle(Worker worker, int events) {
            this.handled += events;
            return true;
        }

        @Override
        int nextFilter() {
            return -1;
        }

        @Override
        boolean readyToClose() {
            return true;
        }

        @Override
        void finish() {
        }
    }
}

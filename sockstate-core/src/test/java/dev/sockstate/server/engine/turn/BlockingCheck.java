package dev.sockstate.server.engine.turn;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;

/**
 * Fails a test during which a worker thread blocked: slept, waited on a monitor, a lock, a latch or a
 * future, or made a blocking JDK I/O call. BlockHound marks the workers' threads as threads that must
 * not block and reports each blocking call made on one; this extension keeps them, and fails the test
 * they were made in. It is on when the {@value #PROPERTY} system property is {@code true} (the build's
 * default test run sets it, with the JUnit extension autodetection that finds it).
 * <p>
 * The engine's own deliberate pauses are allowed: a worker's yield before a dequeue that may wait, its
 * pause after a failed dequeue, the pauses before a registration call refused for want of memory is
 * made again, and the portable backend's wait for work (and its lock, held for a change only). So are a task queue's or the timer's lock held
 * for an offer or a removal (a timed offer too, which the check cannot tell apart), a thread pool's
 * as it adds a thread, the JDK's reads of {@code /dev/urandom} for TLS, and logging. Contention on a
 * monitor ({@code synchronized}) and native calls (the backends' own) are not seen. A test that blocks
 * a worker on purpose (to hold a turn where a race needs it) says so with {@link BlocksWorkers}, and
 * its blocking calls are not counted. Blocking calls of worker threads that were alive when a test
 * began (an earlier test's server) are not that test's.
 */
public final class BlockingCheck implements BeforeEachCallback, AfterEachCallback {

    /** The system property that turns the check on. */
    public static final String PROPERTY = "sockstate.test.blocking-check";

    private static final Queue<Blocked> blocked = new ConcurrentLinkedQueue<>();

    private static final boolean on = Boolean.getBoolean(PROPERTY) && install();

    /** The worker threads alive when the test began: servers of earlier tests, whose calls are not this test's. */
    private static volatile Set<Thread> before = Set.of();

    /** A blocking call on a worker's thread, and where it was made. */
    private static final class Blocked extends AssertionError {

        final transient Thread thread = Thread.currentThread();

        Blocked(BlockingMethod method) {
            super("Worker thread '" + Thread.currentThread().getName() + "' blocked: " + method);
        }
    }

    private static boolean install() {
        BlockHound.builder()
                .nonBlockingThreadPredicate((current) -> current.or((thread) -> thread instanceof WorkerThread))
                // The engine's own deliberate pauses.
                .allowBlockingCallsInside(Worker.class.getName(), "yieldProcessor")
                .allowBlockingCallsInside(Worker.class.getName(), "pause")
                .allowBlockingCallsInside(QueuedChanges.class.getName(), "appliedAfterPauses")
                // The portable backend's dequeue waits for work on a lock, as epoll's waits in the kernel.
                .allowBlockingCallsInside("dev.sockstate.port.nio.NioPort", "doProcess")
                // Its sockets' changes (a side re-armed after a would-block, a connect's interest, a close, a post)
                // take the same lock for as long as the change takes, as a task queue's offer does.
                .allowBlockingCallsInside("dev.sockstate.port.nio.NioPort", "unmask")
                .allowBlockingCallsInside("dev.sockstate.port.nio.NioPort", "refresh")
                .allowBlockingCallsInside("dev.sockstate.port.nio.NioPort", "socketClosing")
                .allowBlockingCallsInside("dev.sockstate.port.nio.NioPort", "socketClosed")
                .allowBlockingCallsInside("dev.sockstate.port.nio.NioPort", "doPost")
                // A task handed to an executor or to the server's timer, and a deadline cancelled, hold the
                // queue's lock (or the pool's, as it adds a thread) for as long as the change takes.
                .allowBlockingCallsInside("java.util.concurrent.LinkedBlockingQueue", "offer")
                .allowBlockingCallsInside("java.util.concurrent.ArrayBlockingQueue", "offer")
                .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "offer")
                .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "addWorker")
                // The JDK's TLS draws its randoms from /dev/urandom, which does not block once the system booted.
                .allowBlockingCallsInside("sun.security.provider.NativePRNG$RandomIO", "implNextBytes")
                // Logging: the JDK's handlers lock and write to the console or a file.
                .allowBlockingCallsInside("java.util.logging.Logger", "log")
                .allowBlockingCallsInside("java.util.logging.Logger", "logp")
                .allowBlockingCallsInside("java.util.logging.Logger", "doLog")
                .blockingMethodCallback((method) -> blocked.add(new Blocked(method)))
                .install();
        return true;
    }

    /** @return the blocking calls on worker threads reported since the test began, so far */
    public static List<AssertionError> seen() {
        return blocked.stream().filter((call) -> !before.contains(call.thread)).map(AssertionError.class::cast).toList();
    }

    /** @return whether the check is on in this JVM */
    public static boolean isOn() {
        return on;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // What a test before this one left blocking after it ended (a worker its stop interrupted and
        // did not wait for, say) is not this test's.
        blocked.clear();
        before = Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread instanceof WorkerThread)
                .collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!on) {
            return;
        }
        List<Blocked> found = new ArrayList<>();
        Blocked next;
        while ((next = blocked.poll()) != null) {
            if (!before.contains(next.thread)) {
                found.add(next);
            }
        }
        if (found.isEmpty() || onPurpose(context.getElement()) || onPurpose(context.getTestClass().map(Class.class::cast))) {
            return;
        }
        Blocked first = found.get(0);
        AssertionError failure = new AssertionError(found.size() + " blocking call(s) on worker threads; the first: "
                + first.getMessage(), first);
        throw failure;
    }

    private static boolean onPurpose(Optional<? extends AnnotatedElement> element) {
        return element.map((annotated) -> annotated.isAnnotationPresent(BlocksWorkers.class)).orElse(false);
    }
}

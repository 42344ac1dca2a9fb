package dev.sockstate.port;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * A backend whose port and sockets misbehave on purpose, by seed, in the ways a kernel may: short
 * reads and writes, would-block where data or room was there, a want of buffers on send, waits that
 * return early with nothing, notifications nothing caused, notifications for sockets already
 * closed, and (when asked) registrations refused. Every fault but the last stays within what the
 * port's contract allows (see {@link NotificationPort}): a server written to that contract serves
 * its users exactly as over the real backend, only through more calls.
 * <p>
 * Where a fault would hide readiness from an edge-triggered persistent registration (a read or
 * write cut short, a would-block that was not), the port owes it a notification, as the edge that
 * the rest of the data would have raised: with the hang-up once one was notified, since the
 * kernel's readiness keeps a FIN that is in. Notifications nothing caused go only to persistent
 * registrations, or to a one-shot one that is armed on a port only one thread dequeues from, which
 * is disarmed first: a one-shot registration is never notified twice per arm.
 * <p>
 * Each thread draws its faults from a generator seeded by the seed, the thread's name and how many
 * threads of that name came before it, so a seed replays the same faults in the same threads as far
 * as the threads' timing allows.
 */
public class MisbehavingBackend extends ForwardingBackend {

    /**
     * The system property whose value, a seed, runs the server tests over this backend with
     * {@link #CONTRACT_FAULTS}, where the backend they run on is epoll (see {@link #followsItsRules}).
     */
    public static final String SEED_PROPERTY = "sockstate.test.misbehave";

    /** The system property that narrows the faults to those it names (comma-separated {@link Fault} names), to find which one a failure needs. */
    public static final String FAULTS_PROPERTY = "sockstate.test.misbehave.faults";

    /** What may go wrong. */
    public enum Fault {
        /** A read returns fewer bytes than there were room and data for. */
        SHORT_READ,
        /** A write takes fewer bytes than there were room for. */
        SHORT_WRITE,
        /** A read (or a datagram's receive) would block, though data was there. */
        READ_WOULD_BLOCK,
        /** A write (or a datagram's send) would block, though room was there. */
        WRITE_WOULD_BLOCK,
        /** A write is refused for want of system buffers ({@code ENOBUFS}). */
        NO_BUFFERS,
        /** A wait returns at once with nothing, as one a signal interrupted. */
        EARLY_WAKE,
        /** A registration is notified with nothing ready. */
        SPURIOUS,
        /** A socket's last armed registration is notified once more after the socket was closed. */
        STALE,
        /**
         * The first ENABLE of an accepted connection is refused ({@code ENOMEM}, as epoll's watch
         * limit refuses one): outside the contract's good days, and the connection's end.
         */
        REFUSED_REGISTRATION
    }

    /** The faults a server must serve through unchanged: all but refused registrations. */
    public static final Set<Fault> CONTRACT_FAULTS = EnumSet.complementOf(EnumSet.of(Fault.REFUSED_REGISTRATION));

    /** How often, out of {@link #SCALE}, a chance for a fault takes it. */
    private static final int RATE = 100;

    private static final int SCALE = 1000;

    private final long seed;

    private final Set<Fault> faults;

    private final Map<Fault, AtomicLong> made = new EnumMap<>(Fault.class);

    /** Accepted sockets not registered yet. */
    final Set<Long> accepted = ConcurrentHashMap.newKeySet();

    /** Every registration of every port of this backend, by socket. */
    final Map<Long, Registration> registrations = new ConcurrentHashMap<>();

    private final ThreadLocal<SplittableRandom> random;

    private final NativeSockets sockets;

    /**
     * @param real the backend that does the work
     * @param seed the seed the faults are drawn from
     * @param faults the faults to make
     */
    public MisbehavingBackend(Backend real, long seed, Set<Fault> faults) {
        super(real);
        this.seed = seed;
        this.faults = EnumSet.copyOf(faults);
        for (Fault fault : Fault.values()) {
            this.made.put(fault, new AtomicLong());
        }
        // The n-th thread of a name draws its own sequence: threads made per call share a name.
        Map<String, AtomicLong> threadsByName = new ConcurrentHashMap<>();
        this.random = ThreadLocal.withInitial(() -> {
            String name = Thread.currentThread().getName();
            long nth = threadsByName.computeIfAbsent(name, (key) -> new AtomicLong()).getAndIncrement();
            return new SplittableRandom(seed * 1_000_003L + name.hashCode() * 31L + nth);
        });
        this.sockets = new MisbehavingSockets(real.sockets(), this);
    }

    /**
     * @param real the backend the tests chose
     * @return that backend, misbehaving with {@link #CONTRACT_FAULTS} when {@link #SEED_PROPERTY} names a seed
     */
    public static Backend whenAsked(Backend real) {
        String seed = System.getProperty(SEED_PROPERTY, "").trim();
        if (seed.isEmpty() || !followsItsRules(real)) {
            return real;
        }
        String only = System.getProperty(FAULTS_PROPERTY, "").trim();
        Set<Fault> faults = only.isEmpty() ? CONTRACT_FAULTS : Arrays.stream(only.split(","))
                .map(String::trim).filter((name) -> !name.isEmpty()).map(Fault::valueOf).collect(Collectors.toCollection(() -> EnumSet.noneOf(Fault.class)));
        return new MisbehavingBackend(real, Long.parseLong(seed), faults);
    }

    /**
     * @param real a backend
     * @return whether this backend's faults keep to that backend's rules: epoll's. Where an enable
     * raises no edge for readiness that already held (Windows, the emulator of its rules), a false
     * would-block after an edge-triggered one-shot re-arm would lose the data for good, and a
     * notification queued before a DISABLE may still come
     */
    public static boolean followsItsRules(Backend real) {
        return "epoll".equals(real.name());
    }

    /**
     * @return whether the server tests run over a misbehaving backend: a test that measures what the
     * real backend costs (memory held, bytes allocated, system calls made) then measures this one's
     * bookkeeping and its extra calls too, and does not run
     */
    public static boolean asked() {
        return !System.getProperty(SEED_PROPERTY, "").isBlank()
                && followsItsRules(Backends.select(System.getProperty("sockstate.test.backend", Backends.AUTO)));
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return new MisbehavingPort(super.openPort(), this);
    }

    @Override
    public NativeSockets sockets() {
        return this.sockets;
    }

    /** @return the seed */
    public long seed() {
        return this.seed;
    }

    /** @return how many faults of each kind were made so far */
    public Map<Fault, Long> made() {
        return this.made.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().get()));
    }

    /** @return whether this chance takes the fault (and counts it) */
    boolean chance(Fault fault) {
        // Drawn whether the fault is made or not: a run narrowed to some faults replays their draws.
        if (this.random.get().nextInt(SCALE) >= RATE || !this.faults.contains(fault)) {
            return false;
        }
        this.made.get(fault).incrementAndGet();
        return true;
    }

    /** @return a number from 0 (inclusive) to {@code bound} (exclusive), from this thread's generator */
    int draw(int bound) {
        return this.random.get().nextInt(bound);
    }

    /** @return whether the socket's reads may misbehave: not once its error was notified */
    boolean readsMayMisbehave(long socket) {
        Registration registration = this.registrations.get(socket);
        return registration == null || !registration.failed;
    }

    /**
     * Owes the socket's registration the events a fault hid from it, when only a fault-made
     * notification would tell them: an edge-triggered persistent registration.
     */
    void owe(long socket, int events) {
        Registration registration = this.registrations.get(socket);
        if (registration != null) {
            registration.owe(events);
        }
    }

    @Override
    public String toString() {
        return "misbehaving " + name() + " (seed " + this.seed + ")";
    }

    /** What a port knows of one registration, as its changes and notifications left it. */
    static final class Registration {

        final MisbehavingPort port;

        final long socket;

        final long key;

        volatile int filter;

        volatile int triggerFlags;

        volatile boolean enabled;

        /** Whether an error was notified: what the socket still holds then came before it, and reads tell it truthfully. */
        volatile boolean failed;

        /**
         * Whether a hang-up was notified: the peer's FIN is in, and the kernel's readiness keeps it,
         * so every later edge (an owed one too) carries the hang-up with the data.
         */
        volatile boolean hungUp;

        /** Events owed by a fault; only for an edge-triggered persistent registration. */
        private final AtomicInteger owed = new AtomicInteger();

        Registration(MisbehavingPort port, long socket, long key) {
            this.port = port;
            this.socket = socket;
            this.key = key;
        }

        boolean isOneShot() {
            return (this.triggerFlags & Trigger.ONESHOT) != 0;
        }

        boolean isEdge() {
            return (this.triggerFlags & Trigger.EDGE) != 0;
        }

        void owe(int events) {
            if (isEdge() && !isOneShot()) {
                int owed = ((events & Events.IN) != 0 && this.hungUp) ? events | Events.HANGUP : events;
                this.owed.getAndUpdate((current) -> current | owed);
                this.port.owes(this);
            }
        }

        /** @return the owed events the filter lets through, no longer owed */
        int takeOwed() {
            return this.owed.getAndSet(0) & this.filter;
        }
    }
}

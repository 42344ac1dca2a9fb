package dev.sockstate.server;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * TCP and UDP servers on socket state notifications: worker groups, each one notification port
 * with threads dequeuing from it, and listeners whose sockets are registered there. Plain Java,
 * usable without Spring: build the settings, {@link #start()}, and {@link #stop(Duration)}.
 */
public final class SocketServer {

    private static final System.Logger logger = System.getLogger(SocketServer.class.getName());

    private final Backend backend;

    private final List<WorkerGroupSettings> groupSettings;

    private final List<ListenerSettings> listenerSettings;

    private final ServerObserver observer;

    private final Object lifecycle = new Object();

    private volatile boolean running;

    private final Map<String, PortGroup> groups = new LinkedHashMap<>();

    private final List<ListenerRuntime> listeners = new ArrayList<>();

    private final List<Registration> listenerSockets = new ArrayList<>();

    private RegistrationTable table;

    private ServerScheduler scheduler;

    private ScheduledFuture<?> idleSweep;

    /**
     * @param backend the notification backend
     * @param groups the worker groups
     * @param listeners the listeners
     * @param observer where to report what happens, {@link ServerObserver#NONE} for nowhere
     * @throws InvalidSettingException when the settings do not fit together, with the reason
     */
    public SocketServer(Backend backend, List<WorkerGroupSettings> groups, List<ListenerSettings> listeners,
            ServerObserver observer) {
        validate(groups, listeners);
        this.backend = backend;
        this.groupSettings = List.copyOf(groups);
        this.listenerSettings = List.copyOf(listeners);
        this.observer = observer;
    }

    private static void validate(List<WorkerGroupSettings> groups, List<ListenerSettings> listeners) {
        Map<String, WorkerGroupSettings> byName = new LinkedHashMap<>();
        for (WorkerGroupSettings group : groups) {
            if (byName.put(group.name(), group) != null) {
                throw new IllegalArgumentException("Worker group '" + group.name() + "' is defined twice");
            }
        }
        Set<String> names = new HashSet<>();
        for (ListenerSettings listener : listeners) {
            if (!names.add(listener.name())) {
                throw new IllegalArgumentException("Listener '" + listener.name() + "' is defined twice");
            }
            WorkerGroupSettings group = byName.get(listener.group());
            if (group == null) {
                String reason = "No such worker group; the groups are " + byName.keySet() + ".";
                throw new InvalidSettingException(InvalidSettingException.Owner.LISTENER, listener.name(), "group", listener.group(),
                        reason, "Listener '" + listener.name() + "' names worker group '" + listener.group()
                                + "', which is not defined; the groups are " + byName.keySet());
            }
            // A persistent registration on a shared port may notify several workers at once; the
            // exclusive edge mode's claim word, or a port per worker, keeps each socket on one thread.
            if (!listener.trigger().isOneShot() && group.workers() > 1 && !group.portPerWorker() && !listener.exclusiveEdge()) {
                String advice = "Give the listener a worker group of its own with one worker, give the group a port per worker"
                        + " (port-per-worker), use a one-shot trigger (LEVEL_ONESHOT) to share the group's port, or, for TCP,"
                        + " the exclusive edge mode (exclusive-edge), whose per-connection claim keeps a socket on one worker at"
                        + " a time";
                String reason = "A persistent registration may notify several workers at once, and worker group '" + group.name()
                        + "' has " + group.workers() + " workers sharing one port, so two threads could handle one socket"
                        + " together. " + advice + ".";
                throw new InvalidSettingException(InvalidSettingException.Owner.LISTENER, listener.name(), "trigger",
                        listener.trigger(), reason, "Listener '" + listener.name() + "' uses a persistent trigger ("
                                + listener.trigger() + ") on worker group '" + group.name() + "', which has " + group.workers()
                                + " workers sharing one port: a persistent registration may notify several workers at once, so"
                                + " two threads could handle one socket together. " + advice);
            }
        }
    }

    /**
     * Opens the ports, binds every listener, registers it and starts the workers. On failure
     * everything opened so far is closed again.
     * @throws ListenerBindException when a listener cannot bind, naming it and its address
     * @throws IllegalStateException when a port cannot be opened
     */
    public void start() {
        synchronized (this.lifecycle) {
            if (this.running) {
                return;
            }
            NativeSockets sockets = this.backend.sockets();
            loadRarelyUsedClasses();
            this.table = new RegistrationTable(capacity());
            this.scheduler = new ServerScheduler("sockstate-scheduler");
            AtomicLong connectionIds = new AtomicLong();
            try {
                for (WorkerGroupSettings settings : this.groupSettings) {
                    List<NotificationPort> ports = openPorts(settings);
                    this.groups.put(settings.name(), new PortGroup(settings, ports, sockets, this.table, this.observer));
                }
                for (ListenerSettings settings : this.listenerSettings) {
                    ListenerRuntime runtime = new ListenerRuntime(settings, this.groups.get(settings.group()), this.scheduler,
                            connectionIds);
                    runtime.observer = this.observer.listener(settings.name(), settings.protocol(), runtime);
                    this.listenerSockets.add(bind(runtime, sockets));
                    this.listeners.add(runtime);
                }
                this.groups.values().forEach(PortGroup::start);
                scheduleIdleSweep();
                this.running = true;
            }
            catch (RuntimeException ex) {
                tearDown(Duration.ZERO);
                throw ex;
            }
            for (ListenerRuntime listener : this.listeners) {
                logger.log(Level.INFO, "Listener '" + listener.settings.name() + "' (" + listener.settings.protocol() + ", "
                        + listener.settings.trigger() + (listener.settings.exclusiveEdge() ? ", exclusive" : "") + ") bound to " + listener.boundAddress + " on " + this.backend.name());
            }
        }
    }

    /**
     * Loads the classes that only some paths use, so that a process out of descriptors, which
     * cannot open a class file, still runs them.
     */
    private static void loadRarelyUsedClasses() {
        new WriteQueue().isEmpty();
        ServerObserver.DequeueOutcome.values();
        for (Class<?> type : List.of(ListenerBindException.class, WorkerGroupState.class, WorkerGroupState.WorkerState.class,
                BoundListener.class, TcpConnection.class, TcpAcceptor.class, UdpEndpoint.class)) {
            type.getName();
        }
    }

    private int capacity() {
        long total = 16;
        for (ListenerSettings listener : this.listenerSettings) {
            total += 1 + ((listener.protocol() == Protocol.TCP) ? listener.maxConnections() : 0);
        }
        return (int) Math.min(total, 1 << 24);
    }

    private List<NotificationPort> openPorts(WorkerGroupSettings settings) {
        List<NotificationPort> ports = new ArrayList<>();
        try {
            for (int i = 0; i < settings.ports(); i++) {
                ports.add(this.backend.openPort());
            }
            return ports;
        }
        catch (RuntimeException ex) {
            ports.forEach(NotificationPort::close);
            throw ex;
        }
        catch (NativeIoException ex) {
            ports.forEach(NotificationPort::close);
            throw new IllegalStateException("Could not open " + ((settings.ports() == 1) ? "the notification port"
                    : "notification port " + (ports.size() + 1) + " of " + settings.ports()) + " of worker group '"
                    + settings.name() + "'", ex);
        }
    }

    private Registration bind(ListenerRuntime runtime, NativeSockets sockets) {
        ListenerSettings settings = runtime.settings;
        InetAddress address = settings.address();
        boolean dualStack = address == null;
        if (dualStack) {
            address = anyAddress();
        }
        InetSocketAddress target = new InetSocketAddress(address, settings.port());
        StandardProtocolFamily family = (address.getAddress().length == 16) ? StandardProtocolFamily.INET6
                : StandardProtocolFamily.INET;
        long handle;
        Registration registered = null;
        try {
            handle = sockets.open(settings.protocol(), family);
        }
        catch (NativeIoException ex) {
            throw new ListenerBindException(settings.name(), target, ex);
        }
        try {
            if (dualStack && family == StandardProtocolFamily.INET6) {
                sockets.setOption(handle, NativeSocketOption.IPV6_ONLY, 0);
            }
            if (settings.reuseAddress()) {
                sockets.setOption(handle, NativeSocketOption.REUSE_ADDRESS, 1);
            }
            if (settings.reusePort()) {
                sockets.setOption(handle, NativeSocketOption.REUSE_PORT, 1);
            }
            if (settings.receiveBufferSize() > 0) {
                sockets.setOption(handle, NativeSocketOption.RECEIVE_BUFFER, settings.receiveBufferSize());
            }
            if (settings.protocol() == Protocol.UDP) {
                // As the reference does: register before binding, so no datagram arrives unnoticed.
                registered = new UdpEndpoint(runtime, handle);
                register(registered);
                sockets.bind(handle, target);
            }
            else {
                if (settings.tcpNoDelay()) {
                    setNoDelayToInherit(sockets, handle, settings);
                }
                sockets.bind(handle, target);
                sockets.listen(handle, settings.backlog());
                registered = new TcpAcceptor(runtime, handle);
                register(registered);
            }
            runtime.boundAddress = sockets.localAddress(handle);
            return registered;
        }
        catch (NativeIoException ex) {
            if (registered != null) {
                // Closes the socket once and takes it out of the table, so the teardown does not close it again.
                registered.forceFinish();
            }
            else {
                closeQuietly(sockets, handle);
            }
            throw new ListenerBindException(settings.name(), target, ex);
        }
    }

    /**
     * Sets TCP_NODELAY on a listening socket, for the sockets it accepts to inherit: one system call
     * per listener instead of one per connection. Best effort: the acceptor checks the first accepted
     * socket and sets each connection on its own where the option was not inherited.
     */
    private static void setNoDelayToInherit(NativeSockets sockets, long handle, ListenerSettings settings) {
        try {
            sockets.setOption(handle, NativeSocketOption.TCP_NODELAY, 1);
        }
        catch (NativeIoException ex) {
            logger.log(Level.DEBUG, "Listener '" + settings.name() + "' has no TCP_NODELAY for its connections to inherit", ex);
        }
    }

    private void register(Registration registration) {
        if (!this.table.add(registration)) {
            throw new IllegalStateException("No room for " + registration);
        }
        registration.release(null);
    }

    private InetAddress anyAddress() {
        try {
            long probe = this.backend.sockets().open(Protocol.TCP, StandardProtocolFamily.INET6);
            closeQuietly(this.backend.sockets(), probe);
            return InetAddress.getByName("::");
        }
        catch (NativeIoException ex) {
            if (ex.error() != NativeError.NOT_SUPPORTED) {
                logger.log(Level.DEBUG, "No IPv6 here; listening on IPv4 only", ex);
            }
        }
        catch (java.net.UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
        try {
            return InetAddress.getByName("0.0.0.0");
        }
        catch (java.net.UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void closeQuietly(NativeSockets sockets, long handle) {
        try {
            sockets.close(handle);
        }
        catch (NativeIoException ex) {
            // released all the same
        }
    }

    private void scheduleIdleSweep() {
        long shortest = this.listenerSettings.stream().filter((listener) -> listener.idleTimeout() != null)
                .mapToLong((listener) -> listener.idleTimeout().toMillis()).min().orElse(0);
        if (shortest > 0) {
            long period = Math.max(10, shortest / 4);
            this.idleSweep = this.scheduler.every(() -> {
                long now = System.nanoTime();
                for (Registration registration : this.table.snapshot()) {
                    if (registration instanceof TcpConnection connection) {
                        connection.checkIdle(now);
                    }
                }
            }, period);
        }
    }

    /**
     * Stops gracefully: stops accepting, lets handlers in flight finish and queued writes drain,
     * closes every connection (aborting those still busy when the timeout ends), removes every
     * registration, stops the workers and closes the ports.
     * @param timeout how long connections get to finish
     */
    public void stop(Duration timeout) {
        synchronized (this.lifecycle) {
            if (!this.running) {
                return;
            }
            this.running = false;
            tearDown(timeout);
        }
    }

    private void tearDown(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (this.idleSweep != null) {
            this.idleSweep.cancel(false);
        }
        if (workersServing()) {
            // Stop accepting, but serve the connections the kernel already completed.
            this.listenerSockets.forEach(Registration::requestDrainAndClose);
            awaitUntil(() -> this.listenerSockets.stream().allMatch(Registration::isFinished), deadline, false);
            this.listenerSockets.forEach((registration) -> registration.requestClose(true));
            awaitUntil(this::isQuiet, deadline, true);
            connections().forEach(TcpConnection::requestDrainAndClose);
            awaitUntil(() -> connections().isEmpty(), deadline, false);
            List<TcpConnection> left = connections();
            if (!left.isEmpty() && workersServing()) {
                logger.log(Level.WARNING, left.size() + " connections were still busy when the shutdown timeout ended; aborting them");
                left.forEach((connection) -> connection.requestClose(true));
                awaitUntil(() -> this.table.size() == 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(1), false);
            }
            awaitUntil(() -> this.table.size() == 0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500), false);
        }
        for (PortGroup group : this.groups.values()) {
            group.stop(5000);
        }
        for (PortGroup group : this.groups.values()) {
            group.closePorts();
        }
        if (this.table != null) {
            this.table.snapshot().forEach(Registration::forceFinish);
        }
        if (this.scheduler != null) {
            this.scheduler.shutdown();
        }
        this.groups.clear();
        this.listeners.clear();
        this.listenerSockets.clear();
    }

    private boolean isQuiet() {
        for (TcpConnection connection : connections()) {
            if (connection.isOwned() || connection.pendingWriteBytes() > 0) {
                return false;
            }
        }
        return true;
    }

    private List<TcpConnection> connections() {
        List<TcpConnection> connections = new ArrayList<>();
        for (Registration registration : this.table.snapshot()) {
            if (registration instanceof TcpConnection connection) {
                connections.add(connection);
            }
        }
        return connections;
    }

    /**
     * @return whether every group's port is open and has a live worker, so that requests handed to
     * the workers are carried out
     */
    private boolean workersServing() {
        if (this.groups.isEmpty()) {
            return false;
        }
        for (PortGroup group : this.groups.values()) {
            if (!group.serving()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until the condition holds (twice in a row when {@code settle}), the deadline passes, or
     * no worker is left to make it true.
     */
    private void awaitUntil(BooleanSupplier condition, long deadline, boolean settle) {
        int streak = 0;
        while (System.nanoTime() < deadline && workersServing()) {
            if (condition.getAsBoolean()) {
                if (!settle || ++streak >= 2) {
                    return;
                }
            }
            else {
                streak = 0;
            }
            try {
                Thread.sleep(5);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** @return the listeners as configured */
    public List<ListenerSettings> listenerSettings() {
        return this.listenerSettings;
    }

    /** @return the worker groups as configured */
    public List<WorkerGroupSettings> workerGroupSettings() {
        return this.groupSettings;
    }

    /** @return whether the server runs */
    public boolean isRunning() {
        return this.running;
    }

    /** @return the backend's name */
    public String backendName() {
        return this.backend.name();
    }

    /** @return the running listeners, with their bound addresses and counts */
    public List<BoundListener> listeners() {
        synchronized (this.lifecycle) {
            return this.listeners.stream().map(SocketServer::describe).collect(Collectors.toList());
        }
    }

    /**
     * @param name a listener's name
     * @return the running listener
     * @throws IllegalArgumentException when no running listener has that name
     */
    public BoundListener listener(String name) {
        return listeners().stream().filter((listener) -> listener.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No running listener '" + name + "'"));
    }

    private static BoundListener describe(ListenerRuntime runtime) {
        ListenerSettings settings = runtime.settings;
        return new BoundListener(settings.name(), settings.protocol(), runtime.boundAddress, settings.trigger(), settings.group(),
                runtime.connections(), runtime.registrations(), runtime.accepted.sum(), runtime.rejected.sum(),
                runtime.handlerErrors.sum());
    }

    /** @return the worker groups with the state of their ports and threads */
    public List<WorkerGroupState> workerGroups() {
        synchronized (this.lifecycle) {
            List<WorkerGroupState> states = new ArrayList<>();
            for (PortGroup group : this.groups.values()) {
                List<WorkerGroupState.WorkerState> workers = new ArrayList<>();
                for (Worker worker : group.workers()) {
                    Thread thread = worker.thread();
                    Throwable failure = worker.failure();
                    workers.add(new WorkerGroupState.WorkerState(thread.getName(), thread.isAlive(),
                            (failure != null) ? failure.toString() : null));
                }
                states.add(new WorkerGroupState(group.settings.name(), group.portsOpen(), workers));
            }
            return states;
        }
    }
}

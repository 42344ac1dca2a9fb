package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.WorkerGroupState;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.tls.TlsStage;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.OffWorker;
import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.server.tls.Tls;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * TCP and UDP servers on socket state notifications: worker groups, each with notification ports
 * and threads dequeuing from them, listeners whose sockets are registered there, and clients whose
 * outbound connections are served there too ({@link #client(String)}). Plain Java,
 * usable without Spring: build the settings, {@link #start()}, and {@link #stop(Duration)}.
 */
public final class SocketServer {

    private static final System.Logger logger = System.getLogger(SocketServer.class.getName());

    private final Backend backend;

    private final List<WorkerGroupSettings> groupSettings;

    /** The listeners the server binds: those it was made with, and those added since, but those removed; replaced whole. */
    private volatile List<ListenerSettings> listenerSettings;

    private final ServerClients clients;

    private final ServerObserver observer;

    private final Object lifecycle = new Object();

    private volatile boolean running;

    /** Whether a stop is under way (outside the lock, so that the listeners can be asked meanwhile); under the lock. */
    private boolean stopping;

    private final Map<String, WorkerGroup> groups = new LinkedHashMap<>();

    private final List<Listener> listeners = new ArrayList<>();

    private final List<SocketTurn> listenerSockets = new ArrayList<>();

    private @Nullable SocketTable table;

    private @Nullable ServerScheduler scheduler;

    private @Nullable ScheduledFuture<?> idleSweep;

    /** The period of the timeout sweep, 0 for none; under the lock. */
    private long sweepPeriod;

    /** The server's connection numbers, binder and registration rules while it runs, for the listeners added meanwhile. */
    private @Nullable AtomicLong connectionIds;

    private @Nullable ListenerBinder binder;

    private @Nullable ChangeRules changeRules;

    /**
     * @param backend the notification backend
     * @param groups the worker groups
     * @param listeners the listeners
     * @param observer where to report what happens, {@link ServerObserver#NONE} for nowhere
     * @throws InvalidSettingException when the settings do not fit together, naming the setting
     */
    public SocketServer(Backend backend, List<WorkerGroupSettings> groups, List<ListenerSettings> listeners,
            ServerObserver observer) {
        this(backend, groups, listeners, List.of(), observer);
    }

    /**
     * @param backend the notification backend
     * @param groups the worker groups
     * @param listeners the listeners
     * @param clients the outbound clients, whose connections the same workers serve
     * @param observer where to report what happens, {@link ServerObserver#NONE} for nowhere
     * @throws InvalidSettingException when the settings do not fit together, naming the setting
     */
    public SocketServer(Backend backend, List<WorkerGroupSettings> groups, List<ListenerSettings> listeners,
            List<ClientSettings> clients, ServerObserver observer) {
        SettingsCheck.check(groups, listeners);
        SettingsCheck.checkClients(groups, clients);
        SettingsCheck.checkSocketOptions(backend, listeners, clients);
        this.backend = backend;
        this.groupSettings = List.copyOf(groups);
        this.listenerSettings = List.copyOf(listeners);
        this.clients = new ServerClients(clients, logger);
        this.observer = observer;
    }

    /**
     * Opens the ports, binds every listener, registers it and starts the workers. On failure
     * everything opened so far is closed again.
     * @throws ListenerBindException when a listener cannot bind, naming it and its address
     * @throws IllegalStateException when a port cannot be opened
     */
    public void start() {
        synchronized (this.lifecycle) {
            awaitStopped();
            if (this.running) {
                return;
            }
            NativeSockets sockets = this.backend.sockets();
            loadRarelyUsedClasses();
            this.table = new SocketTable(capacity());
            this.scheduler = new ServerScheduler("sockstate-scheduler");
            AtomicLong connectionIds = new AtomicLong();
            ListenerBinder binder = new ListenerBinder(sockets);
            ChangeRules changeRules = ChangeRules.of(this.backend);
            this.connectionIds = connectionIds;
            this.binder = binder;
            this.changeRules = changeRules;
            try {
                for (WorkerGroupSettings settings : this.groupSettings) {
                    List<NotificationPort> ports = openPorts(settings);
                    try {
                        this.groups.put(settings.name(), new WorkerGroup(settings, ports, sockets, this.table, this.observer));
                    }
                    catch (RuntimeException ex) {
                        ports.forEach(NotificationPort::close);
                        throw ex;
                    }
                }
                for (ListenerSettings settings : this.listenerSettings) {
                    Listener listener = new Listener(settings, this.groups.get(settings.connection().group()), sockets, this.table,
                            this.scheduler, connectionIds, this.observer, changeRules);
                    this.listenerSockets.addAll(binder.bind(listener));
                    this.listeners.add(listener);
                }
                this.clients.make(this.groups, sockets, this::clientSide);
                this.groups.values().forEach(WorkerGroup::start);
                this.clients.start();
                scheduleIdleSweep();
                this.running = true;
            }
            catch (RuntimeException ex) {
                tearDown(Duration.ZERO, WORKERS_END_WITHIN);
                throw ex;
            }
            this.listeners.forEach(this::logBound);
            this.clients.logStarted(this.backend.name());
        }
    }

    /** @return the profile a client's connections share */
    private ConnectionProfile clientSide(ListenerSettings side, String label, @Nullable Tls tls, HandlerCalls.Replies replies,
            ServerObserver.ActiveCounts counts, WorkerGroup group) {
        ListenerObserver own = this.observer.client(side.name(), counts);
        return new ConnectionProfile(side, tls, replies, own, new ListenerState(label, side.maxConnections(), own), group,
                this.backend.sockets(), this.table, this.scheduler, this.connectionIds, this.changeRules);
    }

    /**
     * Adds a client. On a running server it is made and connects at once, its connections served by
     * its group's workers; on one not running, it does at the next start. Either way it stays among the
     * server's clients until removed.
     * @param settings the client; its name must be new, its group one of the server's
     * @return the running client, or {@code null} when the server does not run
     * @throws InvalidSettingException when the name is taken, the group unknown or an option not had by the backend
     */
    public @Nullable SocketClient addClient(ClientSettings settings) {
        synchronized (this.lifecycle) {
            awaitStopped();
            List<ClientSettings> all = new ArrayList<>(this.clients.settings());
            all.add(settings);
            SettingsCheck.checkClients(this.groupSettings, all);
            SettingsCheck.checkSocketOptions(this.backend, List.of(), List.of(settings));
            Client client = this.clients.add(settings, this.running, this.groups, this.backend.sockets(), this::clientSide);
            if (this.running) {
                this.table.ensureCapacity(capacity());
            }
            if (client != null) {
                scheduleIdleSweep();
                logger.log(Level.INFO, "Client '" + settings.name() + "' added");
            }
            return client;
        }
    }

    /**
     * Removes a client. On a running server it connects no more, and its connections are closed as
     * a graceful stop closes them (the replies its requests are owed awaited until the timeout), while
     * the rest of the server goes on; its meters go with it ({@link ServerObserver#clientRemoved}).
     * @param name the client's name
     * @param timeout how long its connections get to finish
     * @return whether there was such a client
     */
    public boolean removeClient(String name, Duration timeout) {
        Client client;
        synchronized (this.lifecycle) {
            awaitStopped();
            if (this.clients.settings().stream().noneMatch((settings) -> settings.name().equals(name))) {
                return false;
            }
            client = this.clients.remove(name);
            if (client == null) {
                this.observer.clientRemoved(name);
                return true;
            }
            this.stopping = true;
        }
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            new GracefulStop(this.table, List.of(), this.groups.values(), client::owns).run(deadline, deadline + WORKERS_END_WITHIN.toNanos());
            client.closed(Math.max(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100)));
            this.observer.clientRemoved(name);
            logger.log(Level.INFO, "Client '" + name + "' removed");
        }
        finally {
            synchronized (this.lifecycle) {
                this.stopping = false;
                this.lifecycle.notifyAll();
            }
        }
        return true;
    }

    private void logBound(Listener listener) {
        ListenerSettings settings = listener.settings();
        logger.log(Level.INFO, "Listener '" + settings.name() + "' (" + settings.protocol() + ", " + listener.profile.trigger
                + (settings.exclusiveEdge() ? ", exclusive" : "") + ((listener.ownSockets() > 1) ? ((settings.protocol() == Protocol.UDP) ? ", a socket" : ", a listening socket")
                + " on each of " + listener.ownSockets() + " workers" : "") + ") bound to " + AddressText.of(listener.boundAddress())
                + " on " + this.backend.name());
    }

    /**
     * Adds a listener. On a running server it is bound, registered and served at once, by its worker
     * group's workers, as those it started with are; on one not running, it is bound at the next
     * start. Either way it stays among the server's listeners, across stops and starts, until removed.
     * @param settings the listener; its name must be new, its group one of the server's
     * @return the listener as bound, or {@code null} when the server does not run
     * @throws InvalidSettingException when the name is taken, the group unknown or an option not had by the backend
     * @throws ListenerBindException when it cannot bind, naming it and its address; it is then not added
     */
    public @Nullable BoundListener addListener(ListenerSettings settings) {
        synchronized (this.lifecycle) {
            awaitStopped();
            List<ListenerSettings> all = new ArrayList<>(this.listenerSettings);
            all.add(settings);
            SettingsCheck.check(this.groupSettings, all);
            SettingsCheck.checkSocketOptions(this.backend, List.of(settings), List.of());
            List<ListenerSettings> before = this.listenerSettings;
            this.listenerSettings = List.copyOf(all);
            if (!this.running) {
                return null;
            }
            this.table.ensureCapacity(capacity());
            Listener listener;
            try {
                listener = new Listener(settings, this.groups.get(settings.connection().group()), this.backend.sockets(), this.table,
                        this.scheduler, this.connectionIds, this.observer, this.changeRules);
                this.listenerSockets.addAll(this.binder.bind(listener));
            }
            catch (RuntimeException ex) {
                // Not added: nothing of it is kept, its meters neither.
                this.listenerSettings = before;
                this.observer.listenerRemoved(settings.name());
                throw ex;
            }
            this.listeners.add(listener);
            scheduleIdleSweep();
            logBound(listener);
            return listener.describe();
        }
    }

    /**
     * Removes a listener. On a running server it stops accepting and its connections are closed as
     * a graceful stop closes them (what arrived before answered, then the FIN; those still busy when
     * the timeout ends aborted), while the server's other listeners and clients go on; its meters go
     * with it ({@link ServerObserver#listenerRemoved}).
     * @param name the listener's name
     * @param timeout how long its connections get to finish
     * @return whether there was such a listener
     */
    public boolean removeListener(String name, Duration timeout) {
        Listener listener;
        List<SocketTurn> own;
        synchronized (this.lifecycle) {
            awaitStopped();
            if (this.listenerSettings.stream().noneMatch((settings) -> settings.name().equals(name))) {
                return false;
            }
            this.listenerSettings = this.listenerSettings.stream().filter((settings) -> !settings.name().equals(name))
                    .collect(Collectors.toUnmodifiableList());
            listener = this.listeners.stream().filter((running) -> running.name().equals(name)).findFirst().orElse(null);
            if (listener == null) {
                this.observer.listenerRemoved(name);
                return true;
            }
            this.listeners.remove(listener);
            own = listener.state.ownSockets();
            // Removing holds off a stop until the drain is over, as a stop holds off a start.
            this.stopping = true;
        }
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            listener.stopping();
            ConnectionProfile profile = listener.profile;
            new GracefulStop(this.table, own, this.groups.values(), (connection) -> connection.profile == profile)
                    .run(deadline, deadline + WORKERS_END_WITHIN.toNanos());
            // A socket the drain could not close (no worker left to close it) is closed here.
            own.stream().filter((socket) -> !socket.isFinished()).forEach(SocketTurn::forceFinish);
            listener.closed(Math.max(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100)));
            this.observer.listenerRemoved(name);
            logger.log(Level.INFO, "Listener '" + name + "' removed");
        }
        finally {
            synchronized (this.lifecycle) {
                this.listenerSockets.removeAll(own);
                this.stopping = false;
                this.lifecycle.notifyAll();
            }
        }
        return true;
    }

    /**
     * Loads the classes that only some paths use, so that a process out of descriptors, which
     * cannot open a class file, still runs them.
     */
    private static void loadRarelyUsedClasses() {
        new WriteQueue().isEmpty();
        ChangeRules.EPOLL.hashCode();
        ServerObserver.DequeueOutcome.values();
        HandlerCalls.Callback.values();
        for (Class<?> type : List.of(ListenerBindException.class, WorkerGroupState.class, WorkerGroupState.WorkerState.class,
                BoundListener.class, TcpConnection.class, TcpAcceptor.class, UdpSocket.class, WritePath.class, Pipeline.class, TlsStage.class,
                OffWorker.class, GracefulStop.class, Route.class, RejectedExecutionException.class)) {
            type.getName();
        }
    }

    /**
     * @return the room the socket table needs for the listeners and clients there are: each listener's
     * own sockets and most connections, each client's pool and some of its own, at most 2^24
     */
    private int capacity() {
        long total = 16;
        for (ListenerSettings listener : this.listenerSettings) {
            total += 1 + ((listener.protocol() == Protocol.TCP) ? listener.maxConnections() : 0);
        }
        for (ClientSettings client : this.clients.settings()) {
            total += client.poolSize() + 16L;
        }
        return (int) Math.min(total, 1 << 24);
    }

    private List<NotificationPort> openPorts(WorkerGroupSettings settings) {
        List<NotificationPort> ports = new ArrayList<>();
        try {
            for (int i = 0; i < settings.notificationPorts(); i++) {
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
            throw new IllegalStateException("Could not open " + ((settings.notificationPorts() == 1) ? "the notification port"
                    : "notification port " + (ports.size() + 1) + " of " + settings.notificationPorts()) + " of worker group '"
                    + settings.name() + "'", ex);
        }
    }

    /** Sets the timeout sweep for the listeners and clients there are, anew when one was added; under the lock. */
    private void scheduleIdleSweep() {
        // One sweep serves the idle timeouts and the frame timeouts, the listeners' and the clients', at
        // a quarter of the shortest. (A stage's limits, a TLS handshake's or a PROXY protocol header's,
        // are deadlines of its own.)
        long shortest = Stream.concat(this.listenerSettings.stream().map(ListenerSettings::connection),
                this.clients.settings().stream().map(ClientSettings::connection))
                .flatMap((connection) -> Stream.of(connection.idleTimeout(),
                        (connection.framing() != null) ? connection.framing().frameTimeout() : null))
                .filter(Objects::nonNull).mapToLong((timeout) -> Math.max(1, timeout.toMillis())).min().orElse(0);
        long period = (shortest > 0) ? Math.max(10, shortest / 4) : 0;
        if (period == this.sweepPeriod && this.idleSweep != null) {
            return;
        }
        if (this.idleSweep != null) {
            this.idleSweep.cancel(false);
            this.idleSweep = null;
        }
        this.sweepPeriod = period;
        if (period > 0) {
            long periodNanos = TimeUnit.MILLISECONDS.toNanos(period);
            this.idleSweep = this.scheduler.every(() -> {
                long now = System.nanoTime();
                for (SocketTurn socket : this.table.snapshot()) {
                    try {
                        if (socket instanceof TcpConnection connection) {
                            connection.checkIdle(now, periodNanos);
                        }
                    }
                    catch (RuntimeException ex) {
                        // One connection's failure ends neither the sweep nor the timeouts of the others.
                        logger.log(Level.WARNING, "The timeout sweep failed on " + socket, ex);
                    }
                }
            }, period);
        }
    }

    /**
     * Stops gracefully: stops accepting, lets handlers in flight finish and queued writes drain,
     * closes every connection (aborting those still busy when the timeout ends), removes every
     * registration, stops the workers and closes the ports. The workers get up to 5 s after the
     * timeout to end (see {@link #stop(Duration, Duration)}).
     * @param timeout how long connections get to finish
     */
    public void stop(Duration timeout) {
        stop(timeout, WORKERS_END_WITHIN);
    }

    /** How long, after the drain, the workers get to end unless told otherwise. */
    private static final Duration WORKERS_END_WITHIN = Duration.ofSeconds(5);

    /**
     * Stops as {@link #stop(Duration)} does, and ends within {@code timeout + workersWithin}: a worker
     * thread that has not ended by then (a handler call that goes on) is interrupted and named in a
     * warning, and the stop returns without waiting for it any longer.
     * @param timeout how long connections get to finish
     * @param workersWithin how long the worker threads then get to end, all groups together
     */
    public void stop(Duration timeout, Duration workersWithin) {
        synchronized (this.lifecycle) {
            // A stop, or a removal of a listener or a client, under way ends first.
            awaitStopped();
            if (!this.running) {
                return;
            }
            this.running = false;
            this.stopping = true;
        }
        // The drain runs without the lock: the listeners and groups can be asked for meanwhile.
        try {
            tearDown(timeout, workersWithin);
        }
        finally {
            synchronized (this.lifecycle) {
                this.stopping = false;
                this.lifecycle.notifyAll();
            }
        }
    }

    /** Waits, holding the lock, until a stop under way is over. */
    private void awaitStopped() {
        boolean interrupted = false;
        while (this.stopping) {
            try {
                this.lifecycle.wait();
            }
            catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void tearDown(Duration timeout, Duration workersWithin) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (this.idleSweep != null) {
            this.idleSweep.cancel(false);
            this.idleSweep = null;
            this.sweepPeriod = 0;
        }
        this.clients.stopping();
        this.listeners.forEach(Listener::stopping);
        long workersDeadline = deadline + workersWithin.toNanos();
        new GracefulStop(this.table, this.listenerSockets, this.groups.values()).run(deadline, workersDeadline);
        this.groups.values().forEach(WorkerGroup::stopWorkers);
        for (WorkerGroup group : this.groups.values()) {
            group.stop(workersDeadline);
        }
        List<String> running = new ArrayList<>();
        for (WorkerGroup group : this.groups.values()) {
            group.closePorts();
            running.addAll(group.interruptRunning());
        }
        if (!running.isEmpty()) {
            logger.log(Level.WARNING, "Worker threads " + running + " had not ended " + workersWithin.toMillis() + " ms after the"
                    + " stop's timeout (a handler call that does not return, say); interrupted them and stopped without waiting");
        }
        if (this.table != null) {
            for (SocketTurn socket : this.table.snapshot()) {
                try {
                    socket.forceFinish();
                }
                catch (RuntimeException ex) {
                    // One socket that fails to finish (beside a worker that outlived the stop) keeps the others from none.
                    logger.log(Level.WARNING, "Could not finish " + socket + " at the end of the stop: " + ex, ex);
                }
            }
        }
        if (this.scheduler != null) {
            // A timer task that runs gets what is left of the stop, and at least a moment.
            this.scheduler.shutdown(Math.max(workersDeadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100)));
        }
        // The stop's deadline bounds the wait for closes that linger (each ends within its linger time anyway).
        long closesDeadline = Math.max(workersDeadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
        this.listeners.forEach((listener) -> listener.closed(closesDeadline));
        this.clients.closed(workersDeadline);
        synchronized (this.lifecycle) {
            this.groups.clear();
            this.listeners.clear();
            this.listenerSockets.clear();
        }
    }

    /** @return the listeners as configured */
    public List<ListenerSettings> listenerSettings() {
        return this.listenerSettings;
    }

    /**
     * @param name a listener's name
     * @return the listener as configured: in a test, what {@link EmbeddedConnection#open} takes to run
     * one of its connections without a socket
     * @throws IllegalArgumentException when no listener has that name
     */
    public ListenerSettings listenerSettings(String name) {
        return this.listenerSettings.stream().filter((listener) -> listener.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No listener '" + name + "'; listeners: "
                        + this.listenerSettings.stream().map(ListenerSettings::name).collect(Collectors.toList())));
    }

    /** @return the clients as configured */
    public List<ClientSettings> clientSettings() {
        return this.clients.settings();
    }

    /**
     * @param name a client's name
     * @return the running client: its pool, its requests
     * @throws IllegalArgumentException when no running client has that name
     */
    public SocketClient client(String name) {
        return this.clients.client(name);
    }

    /** @return the running clients */
    public List<SocketClient> clients() {
        return this.clients.clients();
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
            return this.listeners.stream().map(Listener::describe).collect(Collectors.toList());
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

    /** @return the connections the server serves now; for the tests of this package */
    List<TcpConnection> connections() {
        SocketTable sockets = this.table;
        return (sockets != null) ? GracefulStop.connectionsIn(sockets) : List.of();
    }

    /** @return how many sockets the running listener registered: one, or one per worker; for the tests of this package */
    int ownSockets(String listener) {
        synchronized (this.lifecycle) {
            return this.listeners.stream().filter((running) -> running.name().equals(listener)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("No running listener '" + listener + "'")).ownSockets();
        }
    }

    /**
     * Changes a listener's traffic shaping. On a running listener its connections, those open and
     * those to come, take the new rates from their next read or send on. The listener keeps them across
     * a stop and a start. A client's: {@link SocketClient#changeShaping}.
     * @param listener the listener's name
     * @param shaping the rates from now on, {@link Shaping#NONE} to lift them
     * @return the rates they replace
     * @throws IllegalArgumentException when no listener has that name
     * @throws InvalidSettingException when the rates do not fit the listener (a UDP one's)
     */
    public Shaping changeShaping(String listener, Shaping shaping) {
        Objects.requireNonNull(shaping, "shaping");
        return change(listener, (builder) -> builder.shaping(shaping), (running) -> running.profile.shaping.change(shaping))
                .connection().shaping();
    }

    /**
     * Changes a listener's most open connections. On a running listener it takes effect with the next
     * accept: lowered, the connections open over it stay, and new ones are refused until fewer are open.
     * The listener keeps it across a stop and a start.
     * @param listener the listener's name
     * @param maxConnections the most open connections from now on, positive
     * @return the maximum it replaces
     * @throws IllegalArgumentException when no listener has that name
     * @throws InvalidSettingException when the maximum does not fit the listener
     */
    public int changeMaxConnections(String listener, int maxConnections) {
        return change(listener, (builder) -> builder.maxConnections(maxConnections), (running) -> {
            this.table.ensureCapacity(capacity());
            running.state.maxConnections(maxConnections);
        }).maxConnections();
    }

    /**
     * Changes a TCP listener's admission. On a running listener the new rules judge the next accept (or
     * PROXY protocol header); what the old ones counted is forgotten: the connections open stay, and a
     * cap per source counts those opened from now on. The listener keeps the rules across a stop and a
     * start.
     * @param listener the listener's name
     * @param admission the rules from now on, {@link Admission#NONE} for none
     * @return the rules they replace
     * @throws IllegalArgumentException when no listener has that name
     * @throws InvalidSettingException when the rules do not fit the listener (a UDP one, say)
     */
    public Admission changeAdmission(String listener, Admission admission) {
        return change(listener, (builder) -> builder.admission(admission),
                (running) -> running.profile.admission = admission.isEmpty() ? null : new AdmissionControl(admission)).admission();
    }

    /**
     * Changes a listener's settings, checked as its builder checks them, in the place of its old ones,
     * and applies the change to it when it runs.
     * @param listener the listener's name
     * @param change what to set on a copy of its settings' builder
     * @param apply what to change on the running listener, after its settings changed
     * @return its settings before
     * @throws IllegalArgumentException when no listener has that name
     * @throws InvalidSettingException when the change does not fit the listener
     */
    private ListenerSettings change(String listener, Consumer<ListenerSettings.Builder> change, Consumer<Listener> apply) {
        synchronized (this.lifecycle) {
            ListenerSettings old = listenerSettings(listener);
            ListenerSettings.Builder builder = old.toBuilder();
            change.accept(builder);
            ListenerSettings changed = builder.build();
            replaceSettings(old, changed);
            Listener running = runningListener(listener);
            if (running != null) {
                apply.accept(running);
            }
            return old;
        }
    }

    /**
     * Joins a multicast group on a UDP listener: at once when it runs, and as it binds from then on (the
     * group is kept in its settings' {@link ListenerSettings#multicast()}).
     * @param listener the listener's name
     * @param group the group, any-source or source-specific
     * @return the listener's multicast settings from now on
     * @throws IllegalArgumentException when no listener has that name, or it joined the group already
     * @throws InvalidSettingException when the listener cannot join groups: a TCP listener, a Unix socket,
     * a listener that receives per worker, a backend without multicast (or the nio backend without a named interface); on a running listener,
     * an interface the system has not
     * @throws UncheckedIOException when the system refuses the group (the listener's settings unchanged)
     */
    public Multicast joinGroup(String listener, Multicast.Group group) {
        return changeMembership(listener, group, true);
    }

    /**
     * Leaves a multicast group a UDP listener joined: at once when it runs, and it joins it no more.
     * @param listener the listener's name
     * @param group the group, as it was joined
     * @return the listener's multicast settings from now on
     * @throws IllegalArgumentException when no listener has that name, or it has not joined the group
     * @throws UncheckedIOException when the system refuses (the listener's settings unchanged)
     */
    public Multicast leaveGroup(String listener, Multicast.Group group) {
        return changeMembership(listener, group, false);
    }

    private Multicast changeMembership(String listener, Multicast.Group group, boolean join) {
        Objects.requireNonNull(group, "group");
        synchronized (this.lifecycle) {
            // Not while a stop closes the sockets: a descriptor closed meanwhile could be another's by now.
            awaitStopped();
            ListenerSettings old = listenerSettings(listener);
            Multicast multicast = old.multicast();
            if (multicast.groups().contains(group) == join) {
                throw new IllegalArgumentException("Listener '" + listener + "' has " + (join ? "joined" : "not joined")
                        + " multicast group " + group + (join ? " already" : ""));
            }
            ListenerSettings changed = old.toBuilder().multicast(join ? multicast.join(group) : multicast.leave(group)).build();
            NativeSockets sockets = this.backend.sockets();
            SettingsCheck.checkMulticast(this.backend, sockets, changed);
            Listener running = runningListener(listener);
            if (running != null) {
                int index = MulticastMembership.interfaceIndex(changed);
                for (SocketTurn socket : running.boundSockets()) {
                    if (socket.isClosing()) {
                        continue;
                    }
                    try {
                        if (join) {
                            sockets.joinGroup(socket.handle, group.address(), index, group.source());
                        }
                        else {
                            sockets.leaveGroup(socket.handle, group.address(), index, group.source());
                        }
                    }
                    catch (NativeIoException ex) {
                        throw new UncheckedIOException("Listener '" + listener + "' could not " + (join ? "join" : "leave")
                                + " multicast group " + group + ": " + ex.getMessage(), ex);
                    }
                }
            }
            replaceSettings(old, changed);
            return changed.multicast();
        }
    }

    /** Keeps a listener's changed settings in place of its old ones; under the lock. */
    private void replaceSettings(ListenerSettings old, ListenerSettings changed) {
        this.listenerSettings = this.listenerSettings.stream().map((settings) -> (settings == old) ? changed : settings)
                .collect(Collectors.toUnmodifiableList());
    }

    /** @return the running listener of that name, {@code null} when none runs; under the lock */
    private @Nullable Listener runningListener(String name) {
        return this.listeners.stream().filter((running) -> running.name().equals(name)).findFirst().orElse(null);
    }

    /** @return the running listener's admission as it runs, {@code null} without rules; for the tests of this package */
    @Nullable AdmissionControl admission(String listener) {
        synchronized (this.lifecycle) {
            return this.listeners.stream().filter((running) -> running.name().equals(listener)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("No running listener '" + listener + "'")).profile.admission;
        }
    }

    /** @return the worker groups with the state of their ports and threads */
    public List<WorkerGroupState> workerGroups() {
        synchronized (this.lifecycle) {
            return this.groups.values().stream().map(WorkerGroup::describe).collect(Collectors.toList());
        }
    }
}

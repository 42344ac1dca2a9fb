package dev.sockstate.server;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.RegistrationBatch;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker group at run time: its ports (one the workers share, or one per worker), its workers and
 * their threads. Each registration is given one of the ports for its life.
 */
final class PortGroup {

    /** Key of the posted message that stops workers; registration keys are never this large. */
    static final long STOP_KEY = Long.MAX_VALUE;

    /** Payload of a posted message that asks a worker to run a registration's requests. */
    static final int RUN = 1;

    private static final System.Logger logger = System.getLogger(PortGroup.class.getName());

    final WorkerGroupSettings settings;

    private final List<NotificationPort> ports;

    /** Counts the sockets given a port, to hand the ports out in turn. */
    private final AtomicInteger nextPort = new AtomicInteger();

    final NativeSockets sockets;

    final RegistrationTable table;

    final ServerObserver observer;

    private final List<Worker> workers = new ArrayList<>();

    private final ThreadLocal<NativeBuffer> offWorkerBuffer;

    /** One change applied at once, per thread; reused, since its results are read before they are reported. */
    private final ThreadLocal<RegistrationBatch> singleChange = ThreadLocal.withInitial(() -> new RegistrationBatch(1));

    /**
     * @param settings the group's settings
     * @param ports its open ports: one, or one per worker
     * @param sockets the backend's sockets
     * @param table the server's registrations
     * @param observer where to report
     */
    PortGroup(WorkerGroupSettings settings, List<NotificationPort> ports, NativeSockets sockets, RegistrationTable table,
            ServerObserver observer) {
        if (ports.size() != settings.ports()) {
            throw new IllegalArgumentException("Worker group '" + settings.name() + "' needs " + settings.ports() + " ports, not "
                    + ports.size());
        }
        this.settings = settings;
        this.ports = List.copyOf(ports);
        this.sockets = sockets;
        this.table = table;
        this.observer = observer;
        this.offWorkerBuffer = ThreadLocal.withInitial(() -> sockets.allocate(settings.readBufferSize()));
    }

    /**
     * @param worker a worker's index, from zero
     * @return the port that worker dequeues from
     */
    NotificationPort portOfWorker(int worker) {
        return this.ports.get(this.ports.size() == 1 ? 0 : worker);
    }

    /** @return the port for a new registration: the shared one, or each worker's in turn */
    NotificationPort nextPort() {
        return (this.ports.size() == 1) ? this.ports.get(0)
                : this.ports.get(Math.floorMod(this.nextPort.getAndIncrement(), this.ports.size()));
    }

    /** Starts the worker threads. */
    void start() {
        int changeCapacity = Math.max(64, this.settings.batchSize() * 2 + 256);
        for (int i = 0; i < this.settings.workers(); i++) {
            Worker worker = new Worker(this, portOfWorker(i), i + 1, changeCapacity);
            this.workers.add(worker);
            Thread thread = new Thread(worker, this.settings.threadNamePrefix() + this.settings.name() + "-" + (i + 1));
            worker.attach(thread);
            thread.start();
        }
    }

    /**
     * Applies one change at once, on the registration's port: from a thread that is not one of the
     * workers, or from a worker of another port.
     * @param registration whose change it is
     * @param operation the change
     * @param filter the events, for ENABLE
     */
    void applyNow(Registration registration, Operation operation, int filter) {
        RegistrationBatch change = this.singleChange.get();
        change.clear();
        if (operation == Operation.ENABLE) {
            change.enable(registration.handle, registration.key, filter, registration.trigger());
        }
        else if (operation == Operation.REMOVE) {
            change.remove(registration.handle, registration.key);
        }
        else {
            change.disable(registration.handle, registration.key);
        }
        NativeIoException failure;
        try {
            registration.port.apply(change);
            failure = change.failed(0) ? change.failure(0, "ProcessSocketNotifications") : null;
            change.clear();
        }
        catch (NativeIoException ex) {
            failure = ex;
        }
        catch (PortClosedException ex) {
            failure = new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0, ex.getMessage());
        }
        registration.changeApplied(null, operation, failure);
    }

    /** @param registration asks a worker to run its requests */
    void postRun(Registration registration) {
        try {
            registration.port.post(registration.key, RUN);
        }
        catch (NativeIoException | PortClosedException ex) {
            logger.log(Level.WARNING, "Could not hand work to group '" + this.settings.name() + "'", ex);
        }
    }

    /**
     * Posts one stop message; each worker that takes it passes it on.
     * @param port the port to post it to
     */
    static void postStop(NotificationPort port) {
        try {
            port.post(STOP_KEY, 0);
        }
        catch (NativeIoException | PortClosedException ex) {
            // the port is closing: its waiters are woken anyway
        }
    }

    /**
     * A registration change was refused; logged, then the socket is closed.
     * @param registration whose change it was
     * @param failure why
     */
    void changeRefused(Registration registration, NativeIoException failure) {
        logger.log(Level.WARNING, "The port refused to re-arm " + registration + "; closing it", failure);
    }

    /**
     * The runtime itself failed while handling a socket (not a handler: those are caught where they
     * are called); the socket is aborted and the worker goes on.
     * @param registration the socket
     * @param failure what failed
     */
    void internalFailure(Registration registration, Throwable failure) {
        logger.log(Level.ERROR, "Handling " + registration + " failed in group '" + this.settings.name() + "'; aborting it",
                failure);
    }

    /** @return a read buffer for a handler running off the worker threads */
    NativeBuffer offWorkerBuffer() {
        return this.offWorkerBuffer.get();
    }

    /** Stops the workers, waits for them, and closes the ports. */
    void stop(long joinMillis) {
        for (Worker worker : this.workers) {
            worker.stop();
        }
        this.ports.forEach(PortGroup::postStop);
        join(joinMillis);
        closePorts();
        join(joinMillis);
    }

    /** Closes every port of the group; closing a closed port does nothing. */
    void closePorts() {
        this.ports.forEach(NotificationPort::close);
    }

    /** @return whether every port is open */
    boolean portsOpen() {
        return this.ports.stream().allMatch(NotificationPort::isOpen);
    }

    /** @return whether every port is open and has a live worker dequeuing from it */
    boolean serving() {
        if (!portsOpen()) {
            return false;
        }
        for (NotificationPort port : this.ports) {
            if (this.workers.stream().noneMatch((worker) -> worker.port() == port && worker.thread().isAlive())) {
                return false;
            }
        }
        return true;
    }

    private void join(long millis) {
        long deadline = System.currentTimeMillis() + millis;
        for (Worker worker : this.workers) {
            Thread thread = worker.thread();
            if (thread == null) {
                continue;
            }
            try {
                thread.join(Math.max(1, deadline - System.currentTimeMillis()));
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** @return the workers */
    List<Worker> workers() {
        return this.workers;
    }
}

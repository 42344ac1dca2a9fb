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

/** A worker group at run time: its port, its workers and their threads. */
final class PortGroup {

    /** Key of the posted message that stops workers; registration keys are never this large. */
    static final long STOP_KEY = Long.MAX_VALUE;

    /** Payload of a posted message that asks a worker to run a registration's requests. */
    static final int RUN = 1;

    private static final System.Logger logger = System.getLogger(PortGroup.class.getName());

    final WorkerGroupSettings settings;

    final NotificationPort port;

    final NativeSockets sockets;

    final RegistrationTable table;

    final ServerObserver observer;

    private final List<Worker> workers = new ArrayList<>();

    private final ThreadLocal<NativeBuffer> offWorkerBuffer;

    PortGroup(WorkerGroupSettings settings, NotificationPort port, NativeSockets sockets, RegistrationTable table,
            ServerObserver observer) {
        this.settings = settings;
        this.port = port;
        this.sockets = sockets;
        this.table = table;
        this.observer = observer;
        this.offWorkerBuffer = ThreadLocal.withInitial(() -> sockets.allocate(settings.readBufferSize()));
    }

    /** Starts the worker threads. */
    void start() {
        int changeCapacity = Math.max(64, this.settings.batchSize() * 2 + 256);
        for (int i = 0; i < this.settings.workers(); i++) {
            Worker worker = new Worker(this, i + 1, changeCapacity);
            this.workers.add(worker);
            Thread thread = new Thread(worker, this.settings.threadNamePrefix() + this.settings.name() + "-" + (i + 1));
            worker.attach(thread);
            thread.start();
        }
    }

    /**
     * Applies one change at once, from a thread that is not one of the workers.
     * @param registration whose change it is
     * @param operation the change
     * @param filter the events, for ENABLE
     */
    void applyNow(Registration registration, Operation operation, int filter) {
        RegistrationBatch change = new RegistrationBatch(1);
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
            this.port.apply(change);
            failure = change.failed(0) ? change.failure(0, "ProcessSocketNotifications") : null;
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
            this.port.post(registration.key, RUN);
        }
        catch (NativeIoException | PortClosedException ex) {
            logger.log(Level.WARNING, "Could not hand work to group '" + this.settings.name() + "'", ex);
        }
    }

    /** Posts one stop message; each worker that takes it passes it on. */
    void postStop() {
        try {
            this.port.post(STOP_KEY, 0);
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

    /** Stops the workers, waits for them, and closes the port. */
    void stop(long joinMillis) {
        for (Worker worker : this.workers) {
            worker.stop();
        }
        postStop();
        join(joinMillis);
        this.port.close();
        join(joinMillis);
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

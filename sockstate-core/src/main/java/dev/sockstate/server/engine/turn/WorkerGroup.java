package dev.sockstate.server.engine.turn;

import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.LendingPool;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.WorkerGroupState;
import dev.sockstate.server.observer.ServerObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A worker group at run time: its ports (one the workers share, or one per worker), its workers and
 * their threads. Each socket is given one of the ports for its life.
 */
public final class WorkerGroup {

    /** The most other threads lent an off-worker's memory at once; more hand their turn on to a worker. */
    private static final int OFF_WORKERS_KEPT = 64;

    public final WorkerGroupSettings settings;

    private final List<NotificationPort> ports;

    /** Counts the sockets given a port, to hand the ports out in turn. */
    private final AtomicInteger nextPort = new AtomicInteger();

    private final List<Worker> workers = new ArrayList<>();

    private final NativeSockets sockets;

    private final SocketTable table;

    private final ServerObserver observer;

    private final LendingPool<OffWorker> offWorkers;

    /**
     * @param settings the group's settings
     * @param ports its open ports: one, or one per worker
     * @param sockets the backend's sockets
     * @param table the server's sockets
     * @param observer where the workers report, asked for each worker's observer as it starts
     */
    public WorkerGroup(WorkerGroupSettings settings, List<NotificationPort> ports, NativeSockets sockets, SocketTable table,
            ServerObserver observer) {
        if (ports.size() != settings.notificationPorts()) {
            throw new IllegalArgumentException("Worker group '" + settings.name() + "' needs " + settings.notificationPorts()
                    + " ports, not " + ports.size());
        }
        this.settings = settings;
        this.ports = List.copyOf(ports);
        this.sockets = sockets;
        this.table = table;
        this.observer = observer;
        this.offWorkers = new LendingPool<>(() -> new OffWorker(sockets, settings.readBufferSize()), OFF_WORKERS_KEPT);
    }

    /** @return the port for a new socket: the shared one, or each worker's in turn */
    public NotificationPort nextPort() {
        return (this.ports.size() == 1) ? this.ports.get(0)
                : this.ports.get(Math.floorMod(this.nextPort.getAndIncrement(), this.ports.size()));
    }

    /** @return whether the port is one of the group's */
    public boolean hasPort(NotificationPort port) {
        return this.ports.contains(port);
    }

    /** @return how many ports the group has: one, or one per worker */
    public int portCount() {
        return this.ports.size();
    }

    /**
     * @param index a port's number, from 0: with a port per worker, the port of worker {@code index + 1}
     * @return the port
     */
    public NotificationPort port(int index) {
        return this.ports.get(index);
    }

    /**
     * Runs a turn on the calling thread, none of this group's workers: with an off-worker's memory
     * lent for it, or with none when all are lent ({@link OffWorker#HANDING_ON}, which leaves the
     * registration to a worker).
     * @param turn the turn, given the runner
     */
    public void lend(Consumer<Runner> turn) {
        OffWorker lent = this.offWorkers.borrow();
        if (lent == null) {
            turn.accept(OffWorker.HANDING_ON);
            return;
        }
        try {
            turn.accept(lent);
        }
        finally {
            this.offWorkers.giveBack(lent);
        }
    }

    /**
     * Lets go of a socket that the calling thread, none of this group's workers, owns.
     * @param socket the socket
     */
    public void letGo(SocketTurn socket) {
        lend(socket::release);
    }

    /** Makes the workers, each with its read buffer and observer, and starts their threads. */
    public void start() {
        for (int i = 0; i < this.settings.workers(); i++) {
            NotificationPort port = this.ports.get(this.ports.size() == 1 ? 0 : i);
            Worker worker = new Worker(this.settings, port, this.sockets.allocate(this.settings.readBufferSize()), this.table,
                    this.observer.worker(this.settings.name(), i + 1));
            this.workers.add(worker);
            Thread thread = new WorkerThread(worker, this.settings.threadNamePrefix() + this.settings.name() + "-" + (i + 1));
            worker.attach(thread);
            thread.start();
        }
    }

    /** Tells the workers to stop and wakes them: each ends once it is back from its current turn. */
    public void stopWorkers() {
        for (Worker worker : this.workers) {
            worker.stop();
        }
        this.ports.forEach(Worker::postStop);
    }

    /**
     * Stops the workers, waits for them, and closes the ports (which wakes a worker that missed its
     * stop), waiting for them again; all by the deadline.
     * @param deadline when to stop waiting, in {@link System#nanoTime()}
     */
    public void stop(long deadline) {
        stopWorkers();
        join(deadline);
        closePorts();
        join(deadline);
    }

    /** @return the names of the worker threads still running, each interrupted */
    public List<String> interruptRunning() {
        List<String> running = new ArrayList<>();
        for (Worker worker : this.workers) {
            String name = worker.interruptIfAlive();
            if (name != null) {
                running.add(name);
            }
        }
        return running;
    }

    /** Closes every port of the group; closing a closed port does nothing. */
    public void closePorts() {
        this.ports.forEach(NotificationPort::close);
    }

    /** @return whether every port is open and has a live worker dequeuing from it */
    public boolean serving() {
        if (!portsOpen()) {
            return false;
        }
        for (NotificationPort port : this.ports) {
            if (this.workers.stream().noneMatch((worker) -> worker.port() == port && worker.isAlive())) {
                return false;
            }
        }
        return true;
    }

    private boolean portsOpen() {
        return this.ports.stream().allMatch(NotificationPort::isOpen);
    }

    private void join(long deadline) {
        for (Worker worker : this.workers) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)))) {
                return;
            }
        }
    }

    /** @return the group's state as seen from outside */
    public WorkerGroupState describe() {
        List<WorkerGroupState.WorkerState> states = new ArrayList<>();
        for (Worker worker : this.workers) {
            states.add(worker.describe());
        }
        return new WorkerGroupState(this.settings.name(), portsOpen(), states);
    }
}

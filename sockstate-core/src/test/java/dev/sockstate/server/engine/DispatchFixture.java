package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.KernelFreePort;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.WorkerObserver;

/**
 * A worker with a batch of notifications already dequeued, each for a socket of its own, for the dispatch benchmark (which lives outside the engine and reaches it through this test
 * fixture): every {@link #dispatch()} hands the batch out through the worker's own logic, each
 * notification looked up by key, claimed through its socket's state word, handled, and let go (the
 * exclusive edge mode's path: a persistent registration whose filter does not change needs no system
 * call to be let go). The sockets do no I/O.
 */
public final class DispatchFixture implements AutoCloseable {

    private final NotificationPort port;

    private final Worker worker;

    private final CountingSocket[] sockets;

    /**
     * @param sockets the backend's sockets, for the worker's read buffer
     * @param size the notifications in the batch
     * @throws NativeIoException never: the canned port's dequeue calls no system
     */
    public DispatchFixture(NativeSockets sockets, int size) throws NativeIoException {
        WorkerGroupSettings settings = WorkerGroupSettings.of("bench", 1);
        SocketTable table = new SocketTable(size + 16);
        this.sockets = new CountingSocket[size];
        CannedPort canned = new CannedPort(this.sockets);
        this.port = canned;
        this.worker = new Worker(settings, this.port, sockets.allocate(settings.readBufferSize()), table, WorkerObserver.NONE);
        for (int i = 0; i < size; i++) {
            this.sockets[i] = new CountingSocket(this.port, table);
            table.add(this.sockets[i]);
        }
        canned.dequeue(this.worker.notifications(), 0);
    }

    /** @return how many of the batch's notifications were socket notifications */
    public int dispatch() {
        return this.worker.dispatch(this.sockets.length);
    }

    /** @return the events the sockets were handed so far */
    public long handled() {
        long handled = 0;
        for (CountingSocket socket : this.sockets) {
            handled += socket.handled;
        }
        return handled;
    }

    @Override
    public void close() {
        this.port.close();
    }

    /** A port with no kernel behind it, whose one dequeue returns an IN notification for each socket. */
    private static final class CannedPort extends KernelFreePort {

        private final CountingSocket[] sockets;

        CannedPort(CountingSocket[] sockets) {
            super("canned");
            this.sockets = sockets;
        }

        @Override
        protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis) {
            for (int i = 0; i < this.sockets.length; i++) {
                storeNotification(notifications, i, this.sockets[i].key(), Events.IN);
            }
            storeSize(notifications, this.sockets.length);
            return this.sockets.length;
        }

        @Override
        protected void doPost(long key, int payload) {
            throw new UnsupportedOperationException("The canned port takes no posted message");
        }
    }

    /** A persistent registration that counts what it is handed and never changes its filter. */
    private static final class CountingSocket extends SocketTurn {

        long handled;

        CountingSocket(NotificationPort port, SocketTable table) {
            super(port, null, table, 0, Trigger.EDGE_PERSISTENT, ListenerObserver.NONE, false, ChangeRules.EPOLL);
        }

        @Override
        protected boolean handle(Runner runner, int events) {
            this.handled += events;
            return true;
        }

        @Override
        protected int nextFilter() {
            return -1;
        }

        @Override
        protected void finish() {
        }
    }
}

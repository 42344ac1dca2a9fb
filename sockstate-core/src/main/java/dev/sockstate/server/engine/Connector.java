package dev.sockstate.server.engine;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.Worker;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Opens a client's connections: each {@link Attempt} tries the client's addresses in order, each
 * resolved and its socket opened in the client's lane of the connect threads ({@link ConnectLane}; never on a worker: a name lookup
 * may block), the connect itself non-blocking, its end notified through the port like any other
 * event ({@link ClientConnection#connected}), and ended by the server's timer when it outlasts the
 * connect timeout. When every address failed, a pool slot's attempt starts again after the
 * client's backoff; a connection of its own fails its future.
 */
final class Connector {

    /** The pool a connector fills: it hears how each slot's connects and connections went. */
    interface Pool {

        /** @return whether connects may begin (false once the server stops) */
        boolean connects();

        /** @param outcome how a connect ended: counted */
        void connectEnded(String outcome);

        /** A slot's connection opened: chosen from now on, and the backoff starts again. */
        void slotOpen(int slot, ClientConnection connection);

        /** @param failure why a slot's round of connects failed, named from now on to whoever sends */
        void named(ClientException failure);

        /** A slot's round of connects failed: it tries again after the backoff, unless the server stops. */
        void slotFailed(int slot, int failuresInARow, ClientException failure);

        /** A slot stays without a connection: the server stops. */
        void slotIdle(int slot);

        /**
         * An open connection ended: its owed requests fail, and a pool slot's is connected again.
         * @param slot its slot, -1 for a connection of its own
         * @param failure why it failed, {@code null} for a close
         */
        void connectionEnded(int slot, ClientLink link, TcpConnection connection, @Nullable Throwable failure);
    }

    private final Pool client;

    private final ClientSettings settings;

    /** What the client's requests share: its names, for the failures' messages. */
    private final RequestTerms terms;

    /** What the client's connections share. */
    private final ConnectionProfile profile;

    private final NativeSockets sockets;

    private final Executor connectThread;

    /** The options of a socket that connects to an IPv4 address. */
    private final SocketOptionList ipv4Options;

    /** The options of a socket that connects to an IPv6 address. */
    private final SocketOptionList ipv6Options;

    /**
     * @param client the pool it fills
     * @param settings the client's settings
     * @param terms what the client's requests share
     * @param profile what the client's connections share
     * @param sockets the backend's sockets
     * @param connectThread where names are resolved and sockets opened
     */
    Connector(Pool client, ClientSettings settings, RequestTerms terms, ConnectionProfile profile, NativeSockets sockets, Executor connectThread) {
        this.client = client;
        this.settings = settings;
        this.terms = terms;
        this.profile = profile;
        this.sockets = sockets;
        this.connectThread = connectThread;
        this.ipv4Options = SocketOptionList.of(settings.connection().socketOptions(), Protocol.TCP, false, false);
        this.ipv6Options = SocketOptionList.of(settings.connection().socketOptions(), Protocol.TCP, true, false);
    }

    /**
     * Connects a pool slot, at once or after a wait.
     * @param slot its index in the pool
     * @param failures the failures in a row before this attempt (the wait grows with them)
     * @param delayMillis how long to wait first
     */
    void connectSlot(int slot, int failures, long delayMillis) {
        Attempt attempt = new Attempt(slot, failures, null);
        if (delayMillis <= 0) {
            attempt.start();
        }
        else if (!this.profile.schedule(attempt::start, delayMillis)) {
            // No timer: the server stops, and nothing is connected again.
            this.client.slotIdle(slot);
        }
    }

    /** @return a connection of its own, outside the pool, once open */
    CompletableFuture<Connection> open() {
        WorkerFuture<Connection> opened = new WorkerFuture<>(this.terms, "a connection of its own");
        Attempt attempt = new Attempt(-1, 0, opened);
        // Its port's workers finish the connect: they may not wait for it.
        opened.completedOn(attempt.home.port());
        attempt.start();
        return opened;
    }

    /** @return the wait before the next attempt after that many failures in a row */
    long backoffMillis(int failures) {
        return this.settings.reconnect().delayMillis(failures, ThreadLocalRandom.current().nextDouble());
    }

    /**
     * One round over the client's addresses for a pool slot, or for a connection of its own. Its
     * steps run one after the other: each address's on the connect thread, the outcome on whichever
     * thread ended the connect.
     */
    final class Attempt implements ClientLink.Opener {

        /** The pool slot, or -1 for a connection of its own. */
        final int slot;

        /** The port of the worker that asked for a connection of its own, to serve it there; {@code null} for a slot, or off the workers. */
        private final @Nullable NotificationPort near = Worker.currentPort();

        private final int failuresBefore;

        private final @Nullable CompletableFuture<Connection> own;

        private final List<String> failures = new ArrayList<>();

        private int next;

        /** Where the connection is served. */
        final SocketHome home;

        Attempt(int slot, int failuresBefore, @Nullable CompletableFuture<Connection> own) {
            this.slot = slot;
            this.failuresBefore = failuresBefore;
            this.own = own;
            this.home = home();
        }

        @Override
        public int failuresBefore() {
            return this.failuresBefore;
        }

        void start() {
            if (!Connector.this.client.connects()) {
                ended(stopped(null));
                return;
            }
            try {
                Connector.this.connectThread.execute(this::tryNext);
            }
            catch (RuntimeException ex) {
                // The connect thread is gone: the server stops.
                ended(stopped(ex));
            }
        }

        /**
         * @return where the connection is served: a slot's on the group's ports in turn by its number (a
         * pool of a size the worker count divides has as many on each), whatever was registered before, so
         * that each worker finds the pool's connections on its own port and writes to them without a
         * handoff to another worker; a connection of its own on the port of the worker that asked for it
         */
        private SocketHome home() {
            ConnectionProfile profile = Connector.this.profile;
            if (this.slot >= 0) {
                return profile.homeOn(this.slot % profile.ports());
            }
            return profile.homeNear(this.near);
        }

        /** Tries the next address: resolves it, opens a socket, begins the connect. */
        private void tryNext() {
            if (!Connector.this.client.connects()) {
                ended(stopped(null));
                return;
            }
            InetSocketAddress address = Connector.this.settings.addresses().get(this.next);
            InetSocketAddress target;
            try {
                InetAddress resolved = InetAddress.getByName(address.getHostString());
                target = new InetSocketAddress(resolved, address.getPort());
            }
            catch (UnknownHostException | SecurityException ex) {
                failed(address, "unresolved", ex);
                return;
            }
            long handle;
            try {
                handle = Connector.this.sockets.open(Protocol.TCP,
                        (target.getAddress() instanceof Inet6Address) ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            }
            catch (NativeIoException ex) {
                failed(address, "failed", ex);
                return;
            }
            try {
                SocketOptionList options = (target.getAddress() instanceof Inet6Address) ? Connector.this.ipv6Options
                        : Connector.this.ipv4Options;
                options.applyTo(Connector.this.sockets, handle);
                Connector.this.sockets.connect(handle, target);
            }
            catch (NativeIoException ex) {
                closeQuietly(handle);
                failed(address, outcomeOf(ex), ex);
                return;
            }
            ClientLink link = new ClientLink(this, Connector.this.terms, target, address.getHostString());
            ClientConnection connection;
            try {
                connection = new ClientConnection(Connector.this.profile, this.home, handle, link);
                if (!Connector.this.profile.state.admit()) {
                    closeQuietly(handle);
                    failed(address, "failed", new IllegalStateException("the client has as many connections as it may"));
                    return;
                }
                if (!Connector.this.profile.enter(connection)) {
                    Connector.this.profile.state.connectionFinished();
                    closeQuietly(handle);
                    failed(address, "failed", new IllegalStateException("the server's socket table is full"));
                    return;
                }
            }
            catch (RuntimeException ex) {
                // Nothing holds the socket yet: it is closed, and the attempt goes on as after any failure.
                closeQuietly(handle);
                failed(address, "failed", ex);
                return;
            }
            Connector.this.profile.state.accepted();
            long timeout = Connector.this.settings.connectTimeout().toMillis();
            Connector.this.profile.schedule(() -> {
                if (link.claimFailed()) {
                    connection.closeFailed(new ConnectTimeout(target, timeout));
                }
            }, timeout);
            // Armed for the connect's end: the open, or the failure, comes as the port's notification.
            Connector.this.profile.letGo(connection);
        }

        @Override
        public void connected(ClientLink link, TcpConnection connection) {
            Connector.this.client.connectEnded("connected");
            if (this.own != null) {
                this.own.complete(connection);
            }
            else {
                Connector.this.client.slotOpen(this.slot, (ClientConnection) connection);
            }
        }

        @Override
        public void finished(ClientLink link, TcpConnection connection, @Nullable Throwable failure) {
            if (!link.opened()) {
                link.claimFailed();
                Throwable cause = (failure != null) ? failure : new IllegalStateException("the connection closed as it opened");
                failed(link.target, outcomeOf(cause), cause);
                return;
            }
            Connector.this.client.connectionEnded(this.slot, link, connection, failure);
        }

        /** An address failed: the next is tried, or, after the last, the round ends. */
        private void failed(InetSocketAddress address, String outcome, Throwable cause) {
            this.failures.add(AddressText.of(address) + ": " + describe(cause));
            this.next++;
            if (this.next < Connector.this.settings.addresses().size() && Connector.this.client.connects()) {
                Connector.this.client.connectEnded(outcome);
                try {
                    Connector.this.connectThread.execute(this::tryNext);
                    return;
                }
                catch (RuntimeException ex) {
                    // The connect thread is gone: the round ends here.
                }
                ended(roundFailure(cause));
                return;
            }
            // The round's failure is named to senders before its last connect is counted, and counted
            // before anyone hears of it (an open() future) or the round is tried again.
            ClientException failure = roundFailure(cause);
            if (this.own == null) {
                Connector.this.client.named(failure);
            }
            Connector.this.client.connectEnded(outcome);
            ended(failure);
        }

        private ClientException roundFailure(Throwable cause) {
            return new ClientException(Connector.this.terms.client, Connector.this.terms.label + " could not connect ("
                    + String.join("; ", this.failures) + ")", cause);
        }

        /** Every address failed (or the server stops). */
        private void ended(ClientException failure) {
            if (this.own != null) {
                this.own.completeExceptionally(failure);
                return;
            }
            Connector.this.client.slotFailed(this.slot, this.failuresBefore + 1, failure);
        }
    }

    /** @return the failure of a connect the server's stop ended */
    private ClientException stopped(@Nullable Throwable cause) {
        return new ClientException(this.terms.client, this.terms.label + " is stopped", cause);
    }

    private void closeQuietly(long handle) {
        try {
            this.sockets.close(handle);
        }
        catch (NativeIoException ex) {
            // released all the same
        }
    }

    /** @return the connects meter's outcome for a failure */
    private static String outcomeOf(Throwable failure) {
        if (failure instanceof NativeIoException error) {
            if (error.error() == NativeError.CONNECTION_REFUSED) {
                return "refused";
            }
            if (error.error() == NativeError.TIMED_OUT) {
                return "timeout";
            }
        }
        if (failure instanceof SSLException) {
            return "tls";
        }
        return (failure instanceof ConnectTimeout) ? "timeout" : "failed";
    }

    private static String describe(Throwable failure) {
        if (failure instanceof UnknownHostException) {
            return "unknown host " + failure.getMessage();
        }
        return failure.getMessage();
    }

    /** A connect that did not end within the client's connect timeout. */
    static final class ConnectTimeout extends Exception {

        private static final long serialVersionUID = 1L;

        ConnectTimeout(InetSocketAddress target, long millis) {
            super("no answer from " + AddressText.of(target) + " within the connect timeout of " + millis + " ms");
        }
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientHeartbeat;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.ReplyHandler;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.server.tls.Tls;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * A running client: a pool of connections kept open by its {@link Connector}, served on the
 * worker group's ports by a {@link Listener} of its own that binds nothing (its connection side: the
 * same framing, messages, handler calls and executor as a listener's), and the requests sent on them.
 * A connection that fails or closes is connected again after the backoff; its owed requests fail.
 */
final class Client implements SocketClient, Connector.Pool {

    private static final System.Logger logger = System.getLogger(Client.class.getName());

    /** A connection that stayed open this long before it ended starts the backoff again from its first wait. */
    private static final long STABLE_NANOS = 1_000_000_000L;

    private final ClientSettings settings;

    /** What its connections share: settings, observer, counts, route, ports, timer. */
    private final ConnectionProfile profile;

    /** Its seam on its route, and the key its requests' times are summed under in a run of frames. */
    private final LinkReplies replies = new LinkReplies();

    /** What its requests share: its names, its request timeout, its meters. */
    private final RequestTerms terms;

    private final Connector connector;

    /** The pool: each slot's open connection, {@code null} while it connects; set by workers, read by any thread. */
    private final AtomicReferenceArray<@Nullable ClientConnection> pool;

    /** The pool connections pinged by the heartbeat and not answered yet, with when; the heartbeat's timer and the replies' threads. */
    private final Map<ClientConnection, Long> pinged = new ConcurrentHashMap<>();

    /**
     * Counts the choices of a connection made off the workers, to take the pool's connections in turn;
     * any thread, without an atomic update (a worker starts its rounds where {@link Worker#nextTurn()} says).
     */
    private int nextSlot;

    private final BoundedLog failures = new BoundedLog(logger);

    /** Why the last connect round failed, for the exception of a send that finds nothing open. */
    private volatile @Nullable ClientException lastFailure;

    private volatile boolean connects = true;

    /**
     * How the pool is used, fixed by the first message or request that goes out: {@link #UNUSED}, {@link #REQUESTS} or
     * {@link #SENDS}. Both on one pool would shift replies: a message sent owed none would take, on a
     * protocol that answers it, the reply the next request is owed.
     */
    private final AtomicInteger use = new AtomicInteger(UNUSED);

    private static final int UNUSED = 0;

    private static final int REQUESTS = 1;

    private static final int SENDS = 2;

    /**
     * @param settings the client's settings
     * @param makeProfile makes the profile its connections share
     * @param sockets the backend's sockets
     * @param connectThread where its connector resolves names and opens sockets
     */
    Client(ClientSettings settings, ProfileMaker makeProfile, NativeSockets sockets, Executor connectThread) {
        this.settings = settings;
        this.pool = new AtomicReferenceArray<>(settings.poolSize());
        ConnectionHandler handler = (settings.handler() != null) ? settings.handler() : Client::discard;
        this.profile = makeProfile.make(connectionSide(settings, handler), "Client '" + settings.name() + "'", settings.connection().tls(),
                this.replies, new Counts());
        this.terms = new RequestTerms(settings.name(), this.profile.state.label(), settings.requestTimeout(), this.profile.observer,
                this.replies, this.failures);
        this.connector = new Connector(this, settings, this.terms, this.profile, sockets, connectThread);
        if (settings.heartbeat() != null) {
            this.profile.trackActivity();
        }
    }

    /** A client without a handler of its own drops the frames no request is owed. */
    private static void discard(Connection connection, ByteBuffer data) {
        data.position(data.limit());
    }

    /**
     * @return how the client's connections are served, as a listener's that binds nothing; but for its
     * TLS, a client's, which the profile is given apart (a listener's settings take a server's only)
     */
    static ListenerSettings connectionSide(ClientSettings settings, ConnectionHandler handler) {
        return ListenerSettings.tcp(settings.name()).connection(settings.connection()).tls(null).handler(handler)
                .maxConnections(Integer.MAX_VALUE).build();
    }

    /** Connects every slot of the pool, and with a request timeout, starts the sweep that applies it. */
    void start() {
        for (int i = 0; i < this.pool.length(); i++) {
            this.connector.connectSlot(i, 0, 0);
        }
        if (this.settings.requestTimeout() != null) {
            this.profile.schedule(this::expireRequests, sweepMillis());
        }
        if (this.settings.heartbeat() != null) {
            this.profile.schedule(this::heartbeat, heartbeatMillis(this.settings.heartbeat()));
        }
    }

    /** @return how often the heartbeat looks at the pool: a quarter of the shorter of its idle time and timeout, between 10 ms and 1 s */
    private static long heartbeatMillis(ClientHeartbeat heartbeat) {
        Duration shorter = (heartbeat.idle().compareTo(heartbeat.timeout()) < 0) ? heartbeat.idle() : heartbeat.timeout();
        return Math.max(10, Math.min(1000, shorter.toMillis() / 4));
    }

    /**
     * The heartbeat's sweep: a pool connection whose ping went unanswered past the timeout is aborted
     * (and connected again); one quiet for the idle time that owes no reply is pinged, the ping a
     * request whose reply ends the wait. A timer's sweep, as the request timeout's is.
     */
    private void heartbeat() {
        ClientHeartbeat heartbeat = this.settings.heartbeat();
        try {
            long now = System.nanoTime();
            this.pinged.keySet().removeIf((connection) -> !connection.isOpen());
            for (int i = 0; i < this.pool.length(); i++) {
                ClientConnection connection = this.pool.get(i);
                if (connection == null || !connection.isOpen()) {
                    continue;
                }
                Long sent = this.pinged.get(connection);
                if (sent != null) {
                    if (now - sent > heartbeat.timeout().toNanos() && this.pinged.remove(connection, sent)) {
                        this.profile.observer.heartbeat(true);
                        logger.log(Level.WARNING, connection + ": no reply came within " + heartbeat.timeout().toMillis()
                                + " ms of its heartbeat's ping, sent after " + heartbeat.idle().toMillis() + " ms without traffic;"
                                + " aborted, to be connected again");
                        connection.requestClose(true);
                    }
                    continue;
                }
                if (this.use.get() == SENDS || connection.link.owed() > 0 || now - connection.lastActivity() < heartbeat.idle().toNanos()) {
                    // (A pool used with send() is not pinged: its frames are the handler's, none a reply.)
                    continue;
                }
                this.pinged.put(connection, now);
                ClientRequest ping = new ClientRequest.Handed(this.terms, (reply, failure) -> this.pinged.remove(connection));
                try {
                    if (connection.link.send(connection, ping, heartbeat.ping())) {
                        this.profile.observer.heartbeat(false);
                    }
                    else {
                        this.pinged.remove(connection);
                    }
                }
                catch (RuntimeException ex) {
                    this.pinged.remove(connection);
                    logger.log(Level.WARNING, label() + " could not write its heartbeat's ping " + heartbeat.ping(), ex);
                }
            }
        }
        finally {
            if (this.connects) {
                this.profile.schedule(this::heartbeat, heartbeatMillis(heartbeat));
            }
        }
    }

    /** @return how often the request timeout is applied: a quarter of it, between 10 ms and 1 s */
    private long sweepMillis() {
        return Math.max(10, Math.min(1000, this.settings.requestTimeout().toMillis() / 4));
    }

    /**
     * Asks each pool connection's owner to fail a request that waited longer than the request timeout,
     * and to close the connection (whose later replies could answer the wrong requests), which fails
     * the others it owed and is connected again: a timer's sweep, not a timer per request, which a busy
     * client would fill the timer's queue with.
     */
    private void expireRequests() {
        try {
            for (int i = 0; i < this.pool.length(); i++) {
                ClientConnection connection = this.pool.get(i);
                if (connection != null) {
                    connection.link.askExpiry(connection);
                }
            }
        }
        finally {
            if (this.connects) {
                this.profile.schedule(this::expireRequests, sweepMillis());
            }
        }
    }

    /** The server stops: nothing is connected again from now on. */
    void stopping() {
        this.connects = false;
        this.profile.state.stopping();
    }

    @Override
    public boolean connects() {
        return this.connects;
    }

    ClientSettings settings() {
        return this.settings;
    }

    /**
     * @param connection one of the server's connections
     * @return whether it is one of this client's
     */
    boolean owns(TcpConnection connection) {
        return connection.profile == this.profile;
    }

    /** The server closed: the client's observer is told. */
    void closed(long deadline) {
        this.profile.awaitLingeringCloses(deadline);
        this.profile.observer.closed();
    }

    @Override
    public void connectEnded(String outcome) {
        this.profile.observer.connect(outcome);
    }

    String label() {
        return this.profile.state.label();
    }

    @Override
    public String name() {
        return this.settings.name();
    }

    @Override
    public void send(Object message) {
        ClientConnection connection = next(true);
        if (!uses(SENDS)) {
            throw refusal(SENDS);
        }
        connection.send(message);
    }

    /**
     * @param how {@link #REQUESTS} or {@link #SENDS}
     * @return whether the pool may be used that way: so far it was, or not at all
     */
    private boolean mayUse(int how) {
        int used = this.use.get();
        return used == how || used == UNUSED;
    }

    /**
     * Fixes how the pool is used by its first use.
     * @param how {@link #REQUESTS} or {@link #SENDS}
     * @return false when the pool is used the other way
     */
    private boolean uses(int how) {
        int used = this.use.get();
        return used == how || used == UNUSED && (this.use.compareAndSet(UNUSED, how) || this.use.get() == how);
    }

    /** @return the refusal of a use of the pool the other way than it is used */
    private IllegalStateException refusal(int how) {
        if (how == SENDS) {
            return new IllegalStateException(label() + " sends requests on its pool: a message sent with send() would take the reply"
                    + " owed to the next request. Send it as a request and leave its reply, or write it on a connection of your own (open())");
        }
        return new IllegalStateException(label() + " sends messages owed no reply on its pool (send()): a request on it could take the"
                + " reply to one of them. Send requests only, or make them on a client of their own");
    }

    @Override
    public CompletableFuture<ByteBuffer> request(Object message) {
        ClientRequest.Awaited request = new ClientRequest.Awaited(this.terms);
        ClientConnection connection = send(message, request);
        if (connection != null) {
            // The workers of its connection's port read the reply: they may not wait for it.
            request.reply.completedOn(connection.port);
        }
        return request.reply;
    }

    @Override
    public void request(Object message, ReplyHandler handler) {
        Objects.requireNonNull(handler, "handler");
        send(message, new ClientRequest.Handed(this.terms, handler));
    }

    /**
     * Sends the request on the next connection, owed its reply there; or ends it, failed. Made by an
     * accepted connection's handler on a worker, it is awaited by that connection.
     * @return the connection it went out on; {@code null} when it ended, failed, before
     */
    private @Nullable ClientConnection send(Object message, ClientRequest request) {
        if (this.settings.connection().framing() == null) {
            throw new IllegalStateException(label() + " has no framing: a request's reply is one frame, so requests need framing");
        }
        if (!mayUse(REQUESTS)) {
            throw refusal(REQUESTS);
        }
        if (Worker.handling() instanceof ReplyAwaiter accepted) {
            request.awaitedBy(accepted);
        }
        ClientConnection connection;
        try {
            connection = next(true);
        }
        catch (ClientException ex) {
            request.failed(ex);
            return null;
        }
        if (!uses(REQUESTS)) {
            // A first message sent meanwhile on another thread fixed the pool the other way.
            request.notSent(refusal(REQUESTS));
            return null;
        }
        try {
            if (!connection.link.send(connection, request, message)) {
                request.failed(this.terms.closedBeforeSent(connection.link.target, connection.failure()));
                return null;
            }
        }
        catch (RuntimeException ex) {
            request.notSent(ex);
            return null;
        }
        return connection;
    }

    @Override
    public <T> CompletableFuture<T> request(Object message, Class<T> replyType) {
        return request(message).thenCompose((reply) -> {
            try {
                return CompletableFuture.completedFuture(this.profile.readMessage(reply, replyType));
            }
            catch (Exception ex) {
                return CompletableFuture.failedFuture(ex);
            }
        });
    }

    @Override
    public Connection connection() {
        return next();
    }

    @Override
    public List<Connection> connections() {
        List<Connection> open = new ArrayList<>();
        for (int i = 0; i < this.pool.length(); i++) {
            ClientConnection connection = this.pool.get(i);
            if (connection != null && connection.isOpen()) {
                open.add(connection);
            }
        }
        return open;
    }

    @Override
    public CompletableFuture<Connection> open() {
        return this.connector.open();
    }

    @Override
    public Shaping changeShaping(Shaping shaping) {
        Objects.requireNonNull(shaping, "shaping");
        Shaping replaced = this.profile.shaping.shaping();
        this.profile.shaping.change(shaping);
        return replaced;
    }

    /**
     * @return an open connection of the pool, in turn; on a worker's thread, from a start it draws,
     * one its port serves when there is one, so that the write, and the reply's handling, stay on this
     * thread (a proxy's accepted connection and its requests' connection are served by the same worker)
     */
    private ClientConnection next() {
        return next(false);
    }

    /**
     * @param withRoom whether the connection must have room for one more request or message: owing
     * fewer than max-pending-requests replies, and not holding more than max-pending-write-bytes
     * unsent (a backend that does not keep up, or does not read at all, must not fill the heap)
     * @return an open connection of the pool, chosen as {@link #next()} chooses, with room if asked
     * @throws ClientException when none is open, or none of those open has room
     */
    private ClientConnection next(boolean withRoom) {
        int slots = this.pool.length();
        if (slots == 0) {
            throw new ClientException(name(), label() + " keeps no connections (its pool size is 0): ask for one with open()", null);
        }
        int slot = 0;
        NotificationPort here = null;
        if (slots > 1) {
            here = Worker.currentPort();
            // A worker draws its own turns; other threads share a plain count: an update lost between
            // them only skews the turns, at no atomic instruction a request.
            int turn = (here != null) ? Worker.nextTurn() : (this.nextSlot++ & Integer.MAX_VALUE);
            slot = turn % slots;
        }
        ClientConnection elsewhere = null;
        ClientConnection full = null;
        for (int i = 0; i < slots; i++, slot = (slot + 1 < slots) ? slot + 1 : 0) {
            ClientConnection connection = this.pool.get(slot);
            if (connection != null && connection.isOpen()) {
                if (withRoom && !hasRoom(connection)) {
                    full = connection;
                    continue;
                }
                if (here == null || connection.port == here) {
                    return connection;
                }
                if (elsewhere == null) {
                    elsewhere = connection;
                }
            }
        }
        if (elsewhere != null) {
            return elsewhere;
        }
        if (full != null) {
            throw new ClientException(name(), label() + ": no connection of its pool has room for another request (each owes "
                    + this.settings.maxPendingRequests() + " replies, its max-pending-requests, or holds more than its"
                    + " max-pending-write-bytes of " + this.settings.connection().maxPendingWriteBytes() + " bytes unsent): "
                    + AddressText.of(full.link.target) + " does not keep up, and the request fails now rather than wait in memory", null);
        }
        ClientException cause = this.lastFailure;
        throw new ClientException(name(), label() + " has no open connection" + ((cause != null) ? ": " + cause.getMessage() : ""
                + " yet"), cause);
    }

    /** @return whether a connection may take one more request: it owes fewer than the most, and the backend reads what it sent */
    private boolean hasRoom(ClientConnection connection) {
        ClientLink link = connection.link;
        return link.owed() < this.settings.maxPendingRequests()
                && connection.pendingWriteBytes() + link.handedBytes() <= this.settings.connection().maxPendingWriteBytes();
    }

    @Override
    public void slotOpen(int slot, ClientConnection connection) {
        this.pool.set(slot, connection);
        this.lastFailure = null;
    }

    @Override
    public void named(ClientException failure) {
        this.lastFailure = failure;
    }

    @Override
    public void slotFailed(int slot, int failuresInARow, ClientException failure) {
        this.lastFailure = failure;
        if (!this.connects) {
            return;
        }
        long delay = this.connector.backoffMillis(failuresInARow);
        this.failures.warn(failure.getMessage() + "; connecting again in " + delay + " ms", null);
        this.connector.connectSlot(slot, failuresInARow, delay);
    }

    @Override
    public void slotIdle(int slot) {
        this.pool.set(slot, null);
    }

    @Override
    public void connectionEnded(int slot, ClientLink link, TcpConnection connection, @Nullable Throwable failure) {
        String why = label() + ": the connection to " + AddressText.of(link.target) + ((failure != null) ? " failed" : " closed")
                + " before the reply" + ((failure != null) ? " (" + failure.getMessage() + ")" : "");
        link.end(why, failure);
        if (slot < 0) {
            return;
        }
        this.pool.compareAndSet(slot, (ClientConnection) connection, null);
        if (!this.connects) {
            return;
        }
        // One that stayed open starts the backoff again; one that ended at once (a backend that accepts and
        // closes: a balancer with no healthy upstream, a server at its connection limit) is one more failure
        // in a row, so the waits grow as for connects refused, and what it logs is bounded as theirs is.
        boolean stable = System.nanoTime() - link.openedAt >= STABLE_NANOS;
        int failuresInARow = stable ? 1 : Math.max(2, link.opener.failuresBefore() + 1);
        long delay = this.connector.backoffMillis(failuresInARow);
        String message = label() + ": the connection to " + AddressText.of(link.target)
                + ((failure != null) ? " failed (" + failure.getMessage() + ")" : " closed") + (stable ? "" : " as it opened")
                + "; connecting again in " + delay + " ms";
        if (stable) {
            logger.log((failure != null) ? Level.WARNING : Level.INFO, message);
        }
        else {
            this.failures.warn(message, null);
        }
        this.connector.connectSlot(slot, failuresInARow, delay);
    }

    /** @return the requests sent on the pool's connections and not answered yet, when a gauge is read */
    int pendingRequests() {
        int owed = 0;
        for (int i = 0; i < this.pool.length(); i++) {
            ClientConnection connection = this.pool.get(i);
            if (connection != null) {
                owed += connection.link.owed();
            }
        }
        return owed;
    }

    @Override
    public String toString() {
        return label();
    }

    /** Makes the profile a client's connections share. */
    @FunctionalInterface
    interface ProfileMaker {

        /**
         * @param side the settings of the client's connections, as a listener's
         * @param label how messages name the client
         * @param tls its TLS, {@code null} for plaintext
         * @param replies its seam on its route
         * @param counts what its meters read when asked
         * @return the profile
         */
        ConnectionProfile make(ListenerSettings side, String label, @Nullable Tls tls, HandlerCalls.Replies replies,
                ServerObserver.ActiveCounts counts);
    }

    /** What the client's meters read when asked (a scrape, the endpoint), added up then, never on the hot path. */
    private final class Counts implements ServerObserver.ActiveCounts {

        /** Its connections count once open: a connect under way is no connection, so a client whose backend is down shows none. */
        @Override
        public int connections() {
            int open = 0;
            for (SocketTurn socket : Client.this.profile.allSockets()) {
                if (socket instanceof ClientConnection connection && connection.profile == Client.this.profile && connection.link.opened()) {
                    open++;
                }
            }
            return open;
        }

        @Override
        public int registrations() {
            return Client.this.profile.state.connections();
        }

        @Override
        public long pendingWriteBytes() {
            return TcpConnection.queuedBytesOf(Client.this.profile);
        }

        @Override
        public long unfinishedFrameBytes() {
            return Client.this.profile.route.unfinishedFrameBytes();
        }

        @Override
        public long pooledBufferBytes() {
            return Client.this.profile.pooledBufferBytes();
        }

        @Override
        public long nativeTlsEngines() {
            return Client.this.profile.nativeTlsEngines();
        }

        @Override
        public int pendingRequests() {
            return Client.this.pendingRequests();
        }
    }

    /**
     * The client's seam on its route: a frame one of its connection's requests is owed completes the
     * request ({@link ClientLink#reply}) instead of reaching the handler; the open makes the connection
     * serve the client. The key its requests' times are summed under in a run of frames.
     */
    static final class LinkReplies implements HandlerCalls.Replies {

        @Override
        public boolean reply(RouteHost connection, ByteBuffer frame) {
            return ((ClientConnection) connection).link.reply(frame);
        }

        @Override
        public void opening(RouteHost connection) {
            ClientConnection opened = (ClientConnection) connection;
            opened.link.opening(opened);
        }

        @Override
        public boolean refused(RouteHost connection, FramingException refusal) {
            return ((ClientConnection) connection).link.refused(refusal);
        }
    }
}

package dev.sockstate.server;

import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.Events;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.InetAddress;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One listener: a bound TCP or UDP socket, how its sockets are registered, and the handler that
 * serves them. Made with {@link #tcp(String)} or {@link #udp(String)}; invalid values are refused by
 * {@link Builder#build()} with a message naming the listener and the setting.
 *
 * @param name the listener's name, unique in a server
 * @param protocol TCP or UDP
 * @param address the local address, {@code null} for every interface
 * @param portNumber the TCP or UDP port number, 0 for an ephemeral one
 * @param unixPath the Unix domain socket bound instead of an IP port (stream for TCP, datagram for UDP), {@code null} for none
 * @param unixPermissions the permissions of the Unix domain socket's file, {@code null} for the umask's
 * @param backlog the TCP pending-connection queue length
 * @param trigger how the listener's sockets are registered; {@code null} for the default of the worker
 * group that serves it (see {@link #triggerOn(WorkerGroupSettings)})
 * @param exclusiveEdge TCP connections are served in the exclusive edge-triggered mode (see
 * {@link Builder#exclusiveEdge(boolean)}); the trigger is then {@link Trigger#EDGE_PERSISTENT}
 * @param events the events a connection is registered for: {@link Events#IN}, with {@link Events#HANGUP} for TCP
 * @param reuseAddress SO_REUSEADDR on the listening socket
 * @param reusePort SO_REUSEPORT on the listening socket
 * @param fastOpenQueue TCP_FASTOPEN on the listening socket: the most connections opened with data in their
 * SYN (TCP Fast Open) that may wait to be accepted, 0 for none
 * @param maxConnections open connections above which new ones are closed at once
 * @param connectionHandler the TCP handler, {@code null} for a UDP listener
 * @param datagramHandler the UDP handler, {@code null} for a TCP listener
 * @param maxDatagramsInFlight UDP with a handler executor: datagrams handed to it and not yet handled,
 * above which more are dropped and counted
 * @param receiveBatch UDP: the most datagrams one receive call takes where the backend receives many at once
 * ({@code recvmmsg} on epoll; one a call elsewhere)
 * @param maxDatagramSize UDP: the room for each datagram received, in bytes, a longer one truncated to it;
 * 0 for the worker group's read buffer size
 * @param multicast UDP: the multicast groups joined, and how multicast datagrams sent go out ({@link Multicast#NONE} for none)
 * @param receive how a UDP listener receives: one socket, or one per worker ({@link ReceiveMode})
 * @param coalescing whether a UDP listener receives datagrams coalesced by the system, and how its handler gets them ({@link Coalescing})
 * @param accept how a TCP listener accepts: one listening socket, or one per worker ({@link AcceptMode})
 * @param proxyProtocol the PROXY protocol header read first on each TCP connection, {@code null} for none
 * @param admission who may connect and how fast ({@link Admission#NONE} for anyone, up to {@code maxConnections})
 * @param connection how its TCP connections are served, as a client's are: the worker group, the handler executor,
 * stages, framing, TLS, socket options and limits ({@link ConnectionSettings})
 */
public record ListenerSettings(String name, Protocol protocol, @Nullable InetAddress address, int portNumber, @Nullable Path unixPath,
        @Nullable Set<PosixFilePermission> unixPermissions, int backlog, @Nullable Trigger trigger, boolean exclusiveEdge, int events,
        boolean reuseAddress, boolean reusePort, int fastOpenQueue, int maxConnections, @Nullable ConnectionHandler connectionHandler,
        @Nullable DatagramHandler datagramHandler, int maxDatagramsInFlight, int receiveBatch, int maxDatagramSize, Multicast multicast, ReceiveMode receive, Coalescing coalescing, AcceptMode accept, @Nullable ProxyProtocol proxyProtocol,
        Admission admission, ConnectionSettings connection) {

    /**
     * The accept and receive modes are SHARED when {@code null}; what only TCP has is refused on UDP, what only
     * UDP has on TCP; {@link Builder#build()}
     * checks the rest.
     */
    public ListenerSettings {
        accept = (accept != null) ? accept : AcceptMode.SHARED;
        receive = (receive != null) ? receive : ReceiveMode.SHARED;
        coalescing = (coalescing != null) ? coalescing : Coalescing.OFF;
        admission = (admission != null) ? admission : Admission.NONE;
        multicast = (multicast != null) ? multicast : Multicast.NONE;
        unixPermissions = (unixPermissions != null) ? Set.copyOf(unixPermissions) : null;
        if (protocol != Protocol.TCP) {
            ListenerChecks.refuseOnUdp(name, connection.stages(), connection.framing(), connection.tls(), accept, proxyProtocol, connection.shaping());
        }
        ListenerChecks.receive(name, protocol, unixPath != null, multicast, receive);
        ListenerChecks.coalescing(name, protocol, unixPath != null, connection.handlerExecutor() != null, coalescing);
        ListenerChecks.socketOptions(name, protocol, unixPath != null, connection.socketOptions(), fastOpenQueue);
        ListenerChecks.admission(name, protocol, unixPath != null, proxyProtocol != null, admission);
    }

    /** @return whether the listener binds a Unix domain socket ({@link #unixPath()}) */
    public boolean isUnix() {
        return this.unixPath != null;
    }

    /**
     * @return a builder that holds these settings, to make settings that differ in some of them: its
     * {@link Builder#build()} checks them again
     */
    public Builder toBuilder() {
        Builder builder = new Builder(this.name, this.protocol);
        builder.address = this.address;
        builder.portNumber = this.portNumber;
        builder.unixPath = this.unixPath;
        builder.unixPermissions = (this.unixPermissions != null) ? PosixFilePermissions.toString(this.unixPermissions) : null;
        builder.backlog = this.backlog;
        builder.trigger = this.trigger;
        builder.exclusiveEdge = this.exclusiveEdge;
        builder.events = this.events;
        builder.reuseAddress = this.reuseAddress;
        builder.reusePort = this.reusePort;
        builder.fastOpenQueue = this.fastOpenQueue;
        builder.maxConnections = this.maxConnections;
        builder.connectionHandler = this.connectionHandler;
        builder.datagramHandler = this.datagramHandler;
        builder.maxDatagramsInFlight = this.maxDatagramsInFlight;
        builder.receiveBatch = this.receiveBatch;
        builder.maxDatagramSize = this.maxDatagramSize;
        builder.multicast = this.multicast;
        builder.receive = this.receive;
        builder.coalescing = this.coalescing;
        builder.accept = this.accept;
        builder.proxyProtocol = this.proxyProtocol;
        builder.admission = this.admission;
        builder.connection(this.connection);
        return builder;
    }

    /** The most datagrams a UDP listener's receive call takes unless told otherwise. */
    public static final int DEFAULT_RECEIVE_BATCH = 16;

    /** The worker group listeners use unless they name another. */
    public static final String DEFAULT_GROUP = "default";

    /**
     * How long a TCP listener's connection may go without traffic unless told otherwise: an hour, as
     * Envoy's TCP proxy closes them, so that connections a peer forgot (or keeps to hold the listener)
     * do not stay for ever; {@code idleTimeout(null)} for none.
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofHours(1);

    /**
     * The trigger the listener's sockets are registered with on its worker group: the one set, or else
     * {@link Trigger#LEVEL_PERSISTENT} for a TCP listener without a handler executor on a group with a
     * port per worker (no re-arm after each message), and {@link Trigger#LEVEL_ONESHOT} otherwise (the
     * workers share one port, or a handler executor runs the handler while the socket stays disarmed).
     * @param group the worker group that serves the listener
     * @return the trigger
     */
    public Trigger triggerOn(WorkerGroupSettings group) {
        if (this.trigger != null) {
            return this.trigger;
        }
        return (this.protocol == Protocol.TCP && this.connection.handlerExecutor() == null && group.portPerWorker()) ? Trigger.LEVEL_PERSISTENT
                : Trigger.LEVEL_ONESHOT;
    }

    /**
     * @param name the listener's name
     * @return a builder of a TCP listener
     */
    public static Builder tcp(String name) {
        return new Builder(name, Protocol.TCP);
    }

    /**
     * @param name the listener's name
     * @return a builder of a UDP listener
     */
    public static Builder udp(String name) {
        return new Builder(name, Protocol.UDP);
    }

    /**
     * Builds {@link ListenerSettings}; every setting has a default but the handler. The settings its
     * connections share with a client's are {@link ConnectionSettings.Builder}'s.
     */
    public static final class Builder extends ConnectionSettings.Builder<Builder> {

        private final String name;

        private final Protocol protocol;

        private @Nullable InetAddress address;

        private int portNumber;

        private @Nullable Path unixPath;

        private @Nullable String unixPermissions;

        private int backlog = 1024;

        private @Nullable Trigger trigger;

        private boolean exclusiveEdge;

        private int events = -1;

        private boolean reuseAddress = true;

        private boolean reusePort;

        private int fastOpenQueue;

        private Admission admission = Admission.NONE;

        private int maxConnections = 10_000;

        private @Nullable ConnectionHandler connectionHandler;

        private @Nullable DatagramHandler datagramHandler;

        private int maxDatagramsInFlight = 1024;

        private int receiveBatch = DEFAULT_RECEIVE_BATCH;

        private int maxDatagramSize;

        private Multicast multicast = Multicast.NONE;

        private AcceptMode accept = AcceptMode.SHARED;

        private ReceiveMode receive = ReceiveMode.SHARED;

        private Coalescing coalescing = Coalescing.OFF;

        private @Nullable ProxyProtocol proxyProtocol;

        private Builder(String name, Protocol protocol) {
            this.name = name;
            this.protocol = protocol;
            if (protocol == Protocol.TCP) {
                idleTimeout(DEFAULT_IDLE_TIMEOUT);
            }
        }

        /** @param address the local address, {@code null} for every interface @return this */
        public Builder address(@Nullable InetAddress address) {
            this.address = address;
            return this;
        }

        /** @param portNumber the TCP or UDP port number, 0 for an ephemeral one @return this */
        public Builder portNumber(int portNumber) {
            this.portNumber = portNumber;
            return this;
        }

        /**
         * Binds a Unix domain socket instead of an IP port; a socket file no server answers at is replaced, any other refused.
         * @param path the socket file's path (at most 107 bytes, removed at the stop), {@code null} for none (the default) @return this
         */
        public Builder unixPath(@Nullable Path path) {
            this.unixPath = path;
            return this;
        }

        /** @param permissions the socket file's as {@code ls -l} shows them ({@code rw-rw----}), {@code null} for the umask's @return this */
        public Builder unixPermissions(@Nullable String permissions) {
            this.unixPermissions = permissions;
            return this;
        }

        /** @param backlog the pending-connection queue length @return this */
        public Builder backlog(int backlog) {
            this.backlog = backlog;
            return this;
        }

        /**
         * @param trigger how sockets are registered, {@code null} for the worker group's default
         * ({@link ListenerSettings#triggerOn(WorkerGroupSettings)})
         * @return this
         */
        public Builder trigger(@Nullable Trigger trigger) {
            this.trigger = trigger;
            return this;
        }

        /**
         * Serves the TCP connections in the exclusive edge-triggered mode: each connection is
         * registered {@link Trigger#EDGE_PERSISTENT} once and never re-armed, and a claim word per
         * connection keeps it handled by one worker at a time, so the mode may share a group's many
         * workers; a per-turn read budget lets a connection that keeps sending yield to the others.
         * About one system call per message fewer than level one-shot, which re-arms after every
         * read. Leave the trigger unset (or
         * {@code EDGE_PERSISTENT}); TCP only.
         * @param exclusiveEdge whether to use the mode
         * @return this
         */
        public Builder exclusiveEdge(boolean exclusiveEdge) {
            this.exclusiveEdge = exclusiveEdge;
            return this;
        }

        /** @param events the events connections are registered for @return this */
        public Builder events(int events) {
            this.events = events;
            return this;
        }

        /** @param reuseAddress SO_REUSEADDR @return this */
        public Builder reuseAddress(boolean reuseAddress) {
            this.reuseAddress = reuseAddress;
            return this;
        }

        /** @param reusePort SO_REUSEPORT @return this */
        public Builder reusePort(boolean reusePort) {
            this.reusePort = reusePort;
            return this;
        }

        /**
         * Serves TCP Fast Open (RFC 7413): a returning client's data rides in its SYN and reaches the
         * handler a round trip sooner. On Linux the server side also needs {@code net.ipv4.tcp_fastopen}
         * with bit 2 set (3 enables both sides); without it the option is set and unused.
         * @param queue the most such connections waiting to be accepted, 0 for none (the default)
         * @return this
         */
        public Builder fastOpenQueue(int queue) {
            this.fastOpenQueue = queue;
            return this;
        }

        /**
         * Says who may connect and how fast: allow and deny ranges, a cap per source, accept rates. A
         * connection refused is closed before any byte is read from it (behind a trusted PROXY protocol
         * sender, as soon as its header names the client), counted by reason.
         * @param admission the rules, {@link Admission#NONE} (the default) for none
         * @return this
         */
        public Builder admission(Admission admission) {
            this.admission = admission;
            return this;
        }

        /** @param maxConnections the most open connections @return this */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /**
         * @param datagrams for a UDP listener with a handler executor, the datagrams handed to it and
         * not yet handled above which more are dropped and counted; a task the executor takes and
         * never runs (a shut-down executor's queue) keeps its place
         * @return this
         */
        public Builder maxDatagramsInFlight(int datagrams) {
            this.maxDatagramsInFlight = datagrams;
            return this;
        }

        /**
         * @param datagrams for a UDP listener, the most datagrams one receive call takes where the backend
         * receives many in one call ({@code recvmmsg} on epoll; elsewhere one a call, whatever this says): each
         * is handed to the handler as it would be alone. A batch's memory is this many times
         * {@link #maxDatagramSize(int)}, taken by the listener's socket on its first datagram. 1 to
         * {@value DatagramBatch#MAX_CAPACITY}, {@value #DEFAULT_RECEIVE_BATCH} unless set.
         * @return this
         */
        public Builder receiveBatch(int datagrams) {
            this.receiveBatch = datagrams;
            return this;
        }

        /**
         * @param bytes for a UDP listener, the room for each datagram received: a longer one is handed over
         * truncated to it. 1 to 65,536; 0 (the default) for the worker group's read buffer size. A listener
         * whose datagrams are small (syslog, metrics) saves memory with a smaller room
         * @return this
         */
        public Builder maxDatagramSize(int bytes) {
            this.maxDatagramSize = bytes;
            return this;
        }

        /**
         * @param multicast for a UDP listener on an IP port, the multicast groups it joins as it binds and how the
         * multicast datagrams it sends go out; {@link Multicast#NONE} (the default) for none. To receive a group's
         * datagrams the listener binds the wildcard address (no {@link #address}) or the group's own
         * @return this
         */
        public Builder multicast(Multicast multicast) {
            this.multicast = multicast;
            return this;
        }

        /** @param handler the TCP handler @return this */
        public Builder handler(ConnectionHandler handler) {
            this.connectionHandler = handler;
            return this;
        }

        /** @param handler the UDP handler @return this */
        public Builder handler(DatagramHandler handler) {
            this.datagramHandler = handler;
            return this;
        }

        /**
         * Gives each worker a UDP socket of its own ({@link ReceiveMode#PER_WORKER}): on a worker group
         * with a port per worker, bound with {@code SO_REUSEPORT}, so that the kernel spreads the
         * datagrams over the workers by sender. UDP only; see {@link ReceiveMode} for what it costs and
         * where it falls back to one socket.
         * @param receive how the listener receives: {@link ReceiveMode#SHARED} (the default) or {@link ReceiveMode#PER_WORKER}
         * @return this builder
         */
        public Builder receive(ReceiveMode receive) {
            this.receive = receive;
            return this;
        }

        /**
         * Receives datagrams coalesced by the system where it can (Linux's {@code UDP_GRO}, Windows'
         * {@code UDP_RECV_MAX_COALESCED_SIZE}, Windows 10 2004 and later): one receive
         * takes a sender's datagrams that arrived together as one. With {@link Coalescing#SEGMENTS} the
         * handler still gets each datagram alone; with {@link Coalescing#WHOLE} it gets the coalesced one. Each
         * datagram's room is then 64 KB, whatever {@link #maxDatagramSize(int)} says. Where the system
         * cannot, each datagram is received alone, which the start-up log says once. UDP on an IP port only.
         * @param coalescing {@link Coalescing#OFF} (the default), {@link Coalescing#SEGMENTS} or {@link Coalescing#WHOLE}
         * @return this builder
         */
        public Builder coalescing(Coalescing coalescing) {
            this.coalescing = coalescing;
            return this;
        }

        /**
         * Gives each worker a listening socket of its own ({@link AcceptMode#PER_WORKER}): on a worker
         * group with a port per worker, bound with {@code SO_REUSEPORT}, so that the kernel spreads
         * the connections over the workers and each is served by the worker that accepted it. TCP
         * only; see {@link AcceptMode} for what it costs and where it falls back to one socket.
         * @param accept how the listener accepts: {@link AcceptMode#SHARED} (the default) or {@link AcceptMode#PER_WORKER}
         * @return this builder
         */
        public Builder accept(AcceptMode accept) {
            this.accept = accept;
            return this;
        }

        /**
         * Reads a PROXY protocol header first on each TCP connection, as a load balancer in front of the
         * listener sends it (HAProxy's {@code send-proxy}, nginx's {@code proxy_protocol on}): the stage
         * that reads it comes before TLS and every other, and the client's address it carries becomes the
         * connection's {@link Connection#remoteAddress() peer} ({@link Connection#proxyHeader()} keeps the
         * whole header). The handler's {@code onOpen} follows the header of a trusted peer; a connection
         * whose header is refused is closed, counted by reason. TCP only.
         * @param proxyProtocol the versions read, the trusted balancers, the header's limits; {@code null} for none (the default)
         * @return this builder
         */
        public Builder proxyProtocol(@Nullable ProxyProtocol proxyProtocol) {
            this.proxyProtocol = proxyProtocol;
            return this;
        }

        /**
         * @return the settings
         * @throws InvalidSettingException naming the listener and the invalid setting
         */
        public ListenerSettings build() {
            if (this.name == null || this.name.isBlank()) {
                throw InvalidSettingException.mustBe(String.valueOf(this.name), Setting.LISTENER_NAME, this.name, "a name that is not blank");
            }
            require(this.portNumber >= 0 && this.portNumber <= 65535, Setting.PORT_NUMBER, this.portNumber, "between 0 and 65535");
            require(this.backlog > 0, Setting.BACKLOG, this.backlog, "positive");
            Set<PosixFilePermission> permissions = UnixSocketCheck.permissions(this.name, this.unixPath, this.unixPermissions,
                    this.address != null || this.portNumber != 0, this.reusePort, this.accept == AcceptMode.PER_WORKER, this.proxyProtocol);
            // Fail closed: on an IP port, a listener that believed every peer's header would let any client that
            // reaches it choose its own address (for logs, meters, allow-lists).
            require(this.proxyProtocol == null || this.protocol != Protocol.TCP || this.unixPath != null
                    || !this.proxyProtocol.trustedProxies().isEmpty(),
                    Setting.TRUSTED_PROXIES, "none", "the balancers' addresses or ranges whose headers are believed (0.0.0.0/0 and ::/0"
                            + " to believe every peer, which then chooses the address it is seen from)");
            require(this.fastOpenQueue >= 0, Setting.FAST_OPEN_QUEUE, this.fastOpenQueue, "zero or positive");
            require(this.maxConnections > 0, Setting.MAX_CONNECTIONS, this.maxConnections, "positive");
            require(this.maxDatagramsInFlight > 0, Setting.MAX_DATAGRAMS_IN_FLIGHT, this.maxDatagramsInFlight, "positive");
            require(this.receiveBatch >= 1 && this.receiveBatch <= DatagramBatch.MAX_CAPACITY, Setting.RECEIVE_BATCH, this.receiveBatch,
                    "between 1 and " + DatagramBatch.MAX_CAPACITY);
            require(this.maxDatagramSize >= 0 && this.maxDatagramSize <= 64 * 1024, Setting.MAX_DATAGRAM_SIZE, this.maxDatagramSize,
                    "between 1 and 65536 bytes, or 0 for the worker group's read buffer size");
            require(this.accept != null, Setting.ACCEPT, null, "SHARED or PER_WORKER");
            require(this.receive != null, Setting.RECEIVE, null, "SHARED or PER_WORKER");
            require(this.coalescing != null, Setting.COALESCING, null, "OFF, SEGMENTS or WHOLE");
            require(this.multicast == null || !this.multicast.isSet() || (this.protocol == Protocol.UDP && this.unixPath == null),
                    Setting.MULTICAST, this.multicast, "none: multicast is for UDP listeners on an IP port");
            ConnectionSettings connection = buildConnection(Scope.LISTENER, this.name);
            ListenerChecks.serverTls(this.name, connection.tls());
            Trigger chosen = ListenerChecks.trigger(this.name, this.protocol, this.trigger, this.exclusiveEdge, connection.handlerExecutor());
            int filter = ListenerChecks.events(this.name, this.protocol, this.events);
            ListenerChecks.handlers(this.name, this.protocol, this.connectionHandler, this.datagramHandler);
            ListenerChecks.routesByApplicationProtocol(this.name, connection.tls(), this.connectionHandler);
            return new ListenerSettings(this.name, this.protocol, this.address, this.portNumber, this.unixPath, permissions,
                    this.backlog, chosen, this.exclusiveEdge, filter, this.reuseAddress, this.reusePort, this.fastOpenQueue,
                    this.maxConnections, this.connectionHandler, this.datagramHandler, this.maxDatagramsInFlight, this.receiveBatch,
                    this.maxDatagramSize, this.multicast, this.receive, this.coalescing, this.accept, this.proxyProtocol, this.admission,
                    connection);
        }

        private void require(boolean valid, Setting setting, @Nullable Object value, String expected) {
            if (!valid) {
                throw InvalidSettingException.mustBe(this.name, setting, value, expected);
            }
        }
    }
}

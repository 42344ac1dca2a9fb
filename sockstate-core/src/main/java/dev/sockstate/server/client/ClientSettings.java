package dev.sockstate.server.client;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.Setting;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.tls.Tls;
import java.net.InetSocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * An outbound TCP client of a server: where it connects, how many connections it keeps open, how it
 * connects again, and how its connections are served, as a listener's are (framing, messages,
 * handler, worker group, handler executor, socket options). Built with {@link #builder(String)}.
 * <pre>{@code
 * ClientSettings.builder("redis").address("127.0.0.1", 6379).poolSize(4)
 *         .framing(Framing.lineBased(512)).build();
 * }</pre>
 * @param name the client's name, unique among the server's clients
 * @param addresses where it connects, host names not yet resolved, tried in order until one answers
 * @param connectTimeout how long a connect may take before the next address is tried
 * @param poolSize the connections kept open; 0 for none, the client's connections then only those {@link SocketClient#open() opened}
 * @param reconnect how long it waits before connecting again after a failure or a close
 * @param requestTimeout how long a {@link SocketClient#request request} waits for its reply once its bytes were handed to
 * the socket (10 s unless set), {@code null} for ever; applied by the worker of the request's connection after it read
 * the replies that came, when a sweep asks it (a quarter of the timeout apart), or by the sweep when
 * that worker is held by a handler
 * @param maxPendingRequests requests a pool connection may owe replies to: above, or while its queued writes
 * are over {@code maxPendingWriteBytes} (the backend does not read them), the next request goes to
 * another connection of the pool, or, when none has room, fails at once instead of waiting in the heap
 * @param idleTimeout how long a connection may go without traffic before it is closed (and opened again), {@code null} for ever
 * @param maxPendingWriteBytes queued write bytes above which a connection stops reading until its queue drains
 * @param tcpNoDelay TCP_NODELAY on its connections
 * @param receiveBufferSize SO_RCVBUF in bytes, 0 for the system's default
 * @param group the worker group whose port and threads serve its connections
 * @param handler what hears of its connections' events and of the frames no request is owed, {@code null} for nothing
 * @param handlerExecutor where handler calls run, {@code null} for the worker threads themselves
 * @param framing how its connections' bytes are cut into frames, {@code null} for raw reads (no requests then)
 * @param charset the character set of messages read or sent as text
 * @param messageMapper reads and writes messages of other types than bytes and text, {@code null} for none
 * @param tls TLS on each connection, a client's ({@link Tls#client}), {@code null} for plaintext
 */
public record ClientSettings(String name, List<InetSocketAddress> addresses, Duration connectTimeout, int poolSize,
        Backoff reconnect, Duration requestTimeout, int maxPendingRequests, Duration idleTimeout, long maxPendingWriteBytes,
        boolean tcpNoDelay,
        int receiveBufferSize, String group, ConnectionHandler handler, Executor handlerExecutor, Framing framing,
        Charset charset, MessageMapper messageMapper, Tls tls) {

    /** The addresses are copied; the charset is UTF-8 and the backoff {@link Backoff#DEFAULT} when {@code null}. */
    public ClientSettings {
        addresses = List.copyOf(addresses);
        charset = (charset != null) ? charset : StandardCharsets.UTF_8;
        reconnect = (reconnect != null) ? reconnect : Backoff.DEFAULT;
    }

    /**
     * @param name the client's name
     * @return a builder with one connection, a connect timeout of 5 s, {@link Backoff#DEFAULT}, 4 MiB
     * of pending writes, TCP_NODELAY, the default worker group
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Builds {@link ClientSettings}, checking each value. */
    public static final class Builder {

        private final String name;

        private final List<InetSocketAddress> addresses = new ArrayList<>();

        private Duration connectTimeout = Duration.ofSeconds(5);

        private int poolSize = 1;

        private Backoff reconnect = Backoff.DEFAULT;

        private Duration requestTimeout = Duration.ofSeconds(10);

        private int maxPendingRequests = 10_000;

        private Duration idleTimeout;

        private long maxPendingWriteBytes = 4L * 1024 * 1024;

        private boolean tcpNoDelay = true;

        private int receiveBufferSize;

        private String group = "default";

        private ConnectionHandler handler;

        private Executor handlerExecutor;

        private Framing framing;

        private Charset charset = StandardCharsets.UTF_8;

        private MessageMapper messageMapper;

        private Tls tls;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * Adds an address, tried after those added before it.
         * @param host a host name, resolved at each connect and never on a worker, or a literal address
         * @param port the port number
         * @return this
         */
        public Builder address(String host, int port) {
            require(host != null && !host.isBlank(), Setting.ADDRESS, host, "a host name or address");
            require(port > 0 && port <= 65535, Setting.ADDRESS, host + ":" + port, "a port number between 1 and 65535");
            this.addresses.add(InetSocketAddress.createUnresolved(host, port));
            return this;
        }

        /**
         * Adds an address as users write it: {@code host:port}, {@code 127.0.0.1:6379}, {@code [::1]:6379}.
         * @param hostAndPort the address
         * @return this
         */
        public Builder address(String hostAndPort) {
            String text = (hostAndPort != null) ? hostAndPort.trim() : "";
            int colon = text.lastIndexOf(':');
            String host = (colon > 0) ? text.substring(0, colon) : "";
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            else if (host.indexOf(':') >= 0) {
                host = "";
            }
            int port = -1;
            try {
                port = (colon > 0) ? Integer.parseInt(text.substring(colon + 1)) : -1;
            }
            catch (NumberFormatException ex) {
                // refused below
            }
            require(!host.isEmpty() && port > 0 && port <= 65535, Setting.ADDRESS, hostAndPort,
                    "host:port, such as 127.0.0.1:6379 or [::1]:6379");
            return address(host, port);
        }

        /** @param timeout how long a connect may take before the next address is tried @return this */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** @param size the connections kept open, 0 for none (only those {@link SocketClient#open() opened}) @return this */
        public Builder poolSize(int size) {
            this.poolSize = size;
            return this;
        }

        /** @param backoff how long to wait before connecting again @return this */
        public Builder reconnect(Backoff backoff) {
            this.reconnect = backoff;
            return this;
        }

        /** @param timeout how long a request waits for its reply (10 s unless set), {@code null} or zero for ever @return this */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * @param requests requests a pool connection may owe replies to (10,000 unless set) before the next
         * goes to another connection, or fails at once when none has room
         * @return this
         */
        public Builder maxPendingRequests(int requests) {
            this.maxPendingRequests = requests;
            return this;
        }

        /** @param timeout how long a connection may be idle before it is closed, {@code null} or zero for ever @return this */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = timeout;
            return this;
        }

        /** @param bytes queued write bytes above which a connection stops reading @return this */
        public Builder maxPendingWriteBytes(long bytes) {
            this.maxPendingWriteBytes = bytes;
            return this;
        }

        /** @param noDelay TCP_NODELAY on the client's connections @return this */
        public Builder tcpNoDelay(boolean noDelay) {
            this.tcpNoDelay = noDelay;
            return this;
        }

        /** @param bytes SO_RCVBUF, 0 for the system's default @return this */
        public Builder receiveBufferSize(int bytes) {
            this.receiveBufferSize = bytes;
            return this;
        }

        /** @param group the worker group that serves the client's connections @return this */
        public Builder group(String group) {
            this.group = group;
            return this;
        }

        /** @param handler what hears of the connections' events and of the frames no request is owed @return this */
        public Builder handler(ConnectionHandler handler) {
            this.handler = handler;
            return this;
        }

        /** @param executor where handler calls run, {@code null} for the workers @return this */
        public Builder handlerExecutor(Executor executor) {
            this.handlerExecutor = executor;
            return this;
        }

        /** @param framing how the connections' bytes are cut into frames (a reply is one frame) @return this */
        public Builder framing(Framing framing) {
            this.framing = framing;
            return this;
        }

        /** @param charset the character set of text messages @return this */
        public Builder charset(Charset charset) {
            this.charset = charset;
            return this;
        }

        /** @param mapper reads and writes messages of other types than bytes and text @return this */
        public Builder messageMapper(MessageMapper mapper) {
            this.messageMapper = mapper;
            return this;
        }

        /**
         * @param tls TLS on each connection: a client's, {@link Tls#client}, whose server name is the
         * address's host unless it names one; {@code null} for plaintext
         * @return this
         */
        public Builder tls(Tls tls) {
            this.tls = tls;
            return this;
        }

        /**
         * @return the settings
         * @throws InvalidSettingException naming the client, the setting and what it must be
         */
        public ClientSettings build() {
            if (this.name == null || this.name.isBlank()) {
                throw InvalidSettingException.mustBe(String.valueOf(this.name), Setting.CLIENT_NAME, this.name, "a name that is not blank");
            }
            require(!this.addresses.isEmpty(), Setting.ADDRESS, "none", "at least one host:port to connect to");
            require(positive(this.connectTimeout), Setting.CONNECT_TIMEOUT, this.connectTimeout, "positive");
            require(this.poolSize >= 0, Setting.POOL_SIZE, this.poolSize, "zero (connections only as opened) or positive");
            require(this.reconnect != null, Setting.RECONNECT, null, "a backoff");
            require(this.requestTimeout == null || !this.requestTimeout.isNegative(), Setting.REQUEST_TIMEOUT, this.requestTimeout,
                    "zero or positive");
            require(this.maxPendingRequests > 0, Setting.MAX_PENDING_REQUESTS, this.maxPendingRequests, "positive");
            require(this.idleTimeout == null || !this.idleTimeout.isNegative(), Setting.IDLE_TIMEOUT, this.idleTimeout,
                    "zero or positive");
            require(this.maxPendingWriteBytes > 0, Setting.MAX_PENDING_WRITE_BYTES, this.maxPendingWriteBytes, "positive");
            require(this.receiveBufferSize >= 0, Setting.RECEIVE_BUFFER_SIZE, this.receiveBufferSize, "zero or positive");
            require(this.group != null && !this.group.isBlank(), Setting.GROUP, this.group, "a worker group's name");
            require(this.tls == null || this.tls.isClient(), Setting.TLS, this.tls, "a client's TLS (Tls.client), which begins the handshake");
            return new ClientSettings(this.name, this.addresses, this.connectTimeout, this.poolSize, this.reconnect,
                    orNull(this.requestTimeout), this.maxPendingRequests, orNull(this.idleTimeout), this.maxPendingWriteBytes, this.tcpNoDelay,
                    this.receiveBufferSize, this.group, this.handler, this.handlerExecutor, this.framing, this.charset,
                    this.messageMapper, this.tls);
        }

        private static boolean positive(Duration duration) {
            return duration != null && !duration.isNegative() && !duration.isZero();
        }

        private static Duration orNull(Duration duration) {
            return (duration == null || duration.isZero()) ? null : duration;
        }

        private void require(boolean valid, Setting setting, Object value, String expected) {
            if (!valid) {
                throw InvalidSettingException.mustBe(Scope.CLIENT, this.name, setting, value, expected);
            }
        }
    }
}

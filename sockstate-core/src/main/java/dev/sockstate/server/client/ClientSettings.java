package dev.sockstate.server.client;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ConnectionSettings;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.Setting;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.tls.Tls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An outbound TCP client of a server: where it connects, how many connections it keeps open, how it
 * connects again, and how its connections are served, as a listener's are ({@link #connection()}). Built with {@link #builder(String)}.
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
 * @param handler what hears of its connections' events and of the frames no request is owed, {@code null} for nothing
 * @param connection how its connections are served, as a listener's are: the worker group, the handler executor,
 * stages, framing (a reply is one frame: requests need it), TLS (a client's), socket options and limits ({@link ConnectionSettings})
 * @param heartbeat a ping on each pool connection that went quiet, {@code null} for none
 */
public record ClientSettings(String name, List<InetSocketAddress> addresses, Duration connectTimeout, int poolSize,
        Backoff reconnect, @Nullable Duration requestTimeout, int maxPendingRequests, @Nullable ConnectionHandler handler,
        ConnectionSettings connection, @Nullable ClientHeartbeat heartbeat) {

    /** The addresses are copied; the backoff is {@link Backoff#DEFAULT} when {@code null}. */
    public ClientSettings {
        addresses = List.copyOf(addresses);
        reconnect = (reconnect != null) ? reconnect : Backoff.DEFAULT;
    }

    /**
     * @param name the client's name
     * @return a builder with one connection, a connect timeout of 5 s, {@link Backoff#DEFAULT}, 4 MiB
     * of pending writes and no limit that aborts (unlike a listener's), TCP_NODELAY, the default worker group
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Builds {@link ClientSettings}, checking each value. The settings its connections share with a
     * listener's are {@link ConnectionSettings.Builder}'s.
     */
    public static final class Builder extends ConnectionSettings.Builder<Builder> {

        private final String name;

        private final List<InetSocketAddress> addresses = new ArrayList<>();

        private Duration connectTimeout = Duration.ofSeconds(5);

        private int poolSize = 1;

        private Backoff reconnect = Backoff.DEFAULT;

        private @Nullable Duration requestTimeout = Duration.ofSeconds(10);

        private int maxPendingRequests = 10_000;

        private @Nullable ConnectionHandler handler;

        private @Nullable ClientHeartbeat heartbeat;

        private Builder(String name) {
            this.name = name;
            // A client's queue holds its requests, which the backend's pace, not a handler, lets grow; a pool
            // connection takes none above maxPendingWriteBytes. No limit aborts it unless one is set.
            abortPendingWriteBytes(0);
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
        public Builder requestTimeout(@Nullable Duration timeout) {
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

        /** @param handler what hears of the connections' events and of the frames no request is owed @return this */
        public Builder handler(ConnectionHandler handler) {
            this.handler = handler;
            return this;
        }

        /** @param heartbeat a ping on each pool connection that went quiet, {@code null} (the default) for none @return this */
        public Builder heartbeat(@Nullable ClientHeartbeat heartbeat) {
            this.heartbeat = heartbeat;
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
            ConnectionSettings connection = buildConnection(Scope.CLIENT, this.name);
            require(connection.tls() == null || connection.tls().isClient(), Setting.TLS, connection.tls(),
                    "a client's TLS (Tls.client), which begins the handshake");
            require(this.heartbeat == null || connection.framing() != null, Setting.CLIENT_HEARTBEAT, this.heartbeat,
                    "none without framing (a ping is a request, whose reply is one frame)");
            return new ClientSettings(this.name, this.addresses, this.connectTimeout, this.poolSize, this.reconnect,
                    orNull(this.requestTimeout), this.maxPendingRequests, this.handler, connection, this.heartbeat);
        }

        private static boolean positive(@Nullable Duration duration) {
            return duration != null && !duration.isNegative() && !duration.isZero();
        }

        private static @Nullable Duration orNull(@Nullable Duration duration) {
            return (duration == null || duration.isZero()) ? null : duration;
        }

        private void require(boolean valid, Setting setting, @Nullable Object value, String expected) {
            if (!valid) {
                throw InvalidSettingException.mustBe(Scope.CLIENT, this.name, setting, value, expected);
            }
        }
    }
}

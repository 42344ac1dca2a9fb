package dev.sockstate.server;

import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.server.tls.Tls;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How the TCP connections of one listener or one client are served, the part of
 * {@link ListenerSettings#connection()} and of {@link dev.sockstate.server.client.ClientSettings#connection()}
 * that both have: the worker group and the handler executor, what stands between socket and handler
 * (stages, framing, TLS, the messages' charset and mapper), the socket options and the limits of each
 * connection. Set through the builder of either, which both extend from {@link Builder}; a UDP
 * listener uses the group, the executor, the receive buffer and the messages' settings only.
 *
 * @param group the worker group whose port and threads serve the connections
 * @param handlerExecutor where handler calls run, {@code null} for the worker threads themselves
 * @param stages makers of each connection's {@link Stage}s, in inbound order (empty for none)
 * @param framing how a connection's bytes are cut into frames for the handler, {@code null} for raw reads
 * @param charset the character set of messages read or sent as text
 * @param messageMapper reads and writes messages of other types than bytes and text, {@code null} for none
 * @param tls TLS on each connection, {@code null} for plaintext: a server's on a listener, a client's on a client
 * @param socketOptions the options set on each connection's socket
 * @param idleTimeout how long a connection may go without traffic before it is closed, {@code null} for ever
 * @param maxPendingWriteBytes queued write bytes above which reading pauses until the queue drains (and a
 * client's pool connection takes no more requests)
 * @param abortPendingWriteBytes queued write bytes above which the connection is aborted, its handler told
 * ({@link PendingWriteLimitException}): a handler that writes on without looking at
 * {@link Connection#isWritable()}, or other threads' writes beyond reason; 0 for no such limit
 * @param shaping the rates the connections read and write at, each and together ({@link Shaping#NONE} for none);
 * the running server's may change ({@code SocketServer.changeShaping})
 */
public record ConnectionSettings(String group, @Nullable Executor handlerExecutor, List<Supplier<? extends Stage>> stages,
        @Nullable Framing framing, Charset charset, @Nullable MessageMapper messageMapper, @Nullable Tls tls,
        SocketOptions socketOptions, @Nullable Duration idleTimeout, long maxPendingWriteBytes, long abortPendingWriteBytes,
        Shaping shaping) {

    /**
     * The stages are copied (none when {@code null}), the charset is UTF-8, the options the defaults and
     * the shaping none when {@code null}.
     */
    public ConnectionSettings {
        stages = (stages != null) ? List.copyOf(stages) : List.of();
        charset = (charset != null) ? charset : StandardCharsets.UTF_8;
        socketOptions = (socketOptions != null) ? socketOptions : SocketOptions.DEFAULTS;
        shaping = (shaping != null) ? shaping : Shaping.NONE;
    }

    /**
     * What the builders of listeners and clients share: each setting of {@link ConnectionSettings}, with
     * the same default for both, checked as either builder's {@code build()} makes the part.
     * @param <B> the builder that extends it, which each setter returns
     */
    public abstract static class Builder<B extends Builder<B>> {

        private String group = ListenerSettings.DEFAULT_GROUP;

        private @Nullable Executor handlerExecutor;

        private final List<Supplier<? extends Stage>> stages = new ArrayList<>();

        private @Nullable Framing framing;

        private Charset charset = StandardCharsets.UTF_8;

        private @Nullable MessageMapper messageMapper;

        private @Nullable Tls tls;

        private boolean tcpNoDelay = true;

        private int receiveBufferSize;

        private int sendBufferSize;

        private SocketOptions.@Nullable KeepAlive keepAlive;

        private @Nullable Duration userTimeout;

        private @Nullable Duration linger;

        private int notSentLowWatermark;

        private int trafficClass = -1;

        private @Nullable Duration idleTimeout;

        private long maxPendingWriteBytes = 4L * 1024 * 1024;

        private long abortPendingWriteBytes = 64L * 1024 * 1024;

        private Shaping shaping = Shaping.NONE;

        /** A builder with every default: the default group, UTF-8, TCP_NODELAY, 4 MiB to pause and 64 MiB to abort. */
        protected Builder() {
        }

        /** @param group the worker group, {@value ListenerSettings#DEFAULT_GROUP} unless set @return this */
        public B group(String group) {
            this.group = group;
            return self();
        }

        /** @param executor where handler calls run, {@code null} for the workers @return this */
        public B handlerExecutor(@Nullable Executor executor) {
            this.handlerExecutor = executor;
            return self();
        }

        /**
         * Adds a stage to each connection's pipeline, after those added before: inbound bytes reach it
         * after theirs, and the handler's writes before theirs (see {@link Stage}).
         * @param maker makes the stage of one connection, called as each connection opens
         * @return this
         */
        public B stage(Supplier<? extends Stage> maker) {
            this.stages.add(maker);
            return self();
        }

        /**
         * Cuts each connection's bytes into frames: the handler's {@code onData} receives one whole frame
         * a call, and each of its writes goes out as one frame (a client's reply is one frame). Framing
         * is the route's last element before the handler, after the stages added with {@link #stage}.
         * @param framing the framing, {@code null} for raw reads (the default)
         * @return this
         */
        public B framing(@Nullable Framing framing) {
            this.framing = framing;
            return self();
        }

        /** @param charset the character set of messages read or sent as text (UTF-8 by default) @return this */
        public B charset(Charset charset) {
            this.charset = charset;
            return self();
        }

        /**
         * @param mapper reads and writes messages of the application's types ({@link Connection#send},
         * {@link MessageHandler}), {@code null} for none
         * @return this
         */
        public B messageMapper(@Nullable MessageMapper mapper) {
            this.messageMapper = mapper;
            return self();
        }

        /**
         * Secures each connection with TLS: a TLS stage next to the socket (after the PROXY protocol's
         * on a listener), below the stages added with {@link #stage} and the framing, which see
         * plaintext, as the handler does ({@link Connection#tlsSession()} shows the session). The
         * handler's {@code onOpen} follows the handshake's success; a connection whose handshake fails
         * (or outlasts {@link Tls#handshakeTimeout()}) is closed unheard. A graceful close sends
         * {@code close_notify}. A listener takes a server's ({@link Tls#server}), a client a client's
         * ({@link Tls#client}), whose server name is the address's host unless it names one.
         * @param tls the TLS, {@code null} for plaintext (the default)
         * @return this
         */
        public B tls(@Nullable Tls tls) {
            this.tls = tls;
            return self();
        }

        /** @param tcpNoDelay TCP_NODELAY on each connection (set unless turned off) @return this */
        public B tcpNoDelay(boolean tcpNoDelay) {
            this.tcpNoDelay = tcpNoDelay;
            return self();
        }

        /** @param bytes SO_RCVBUF, 0 for the system's default @return this */
        public B receiveBufferSize(int bytes) {
            this.receiveBufferSize = bytes;
            return self();
        }

        /** @param bytes SO_SNDBUF, 0 for the system's default @return this */
        public B sendBufferSize(int bytes) {
            this.sendBufferSize = bytes;
            return self();
        }

        /**
         * Probes idle connections so that a peer gone without a word is found ({@link SocketOptions#keepAlive()}).
         * @param keepAlive the keep-alive's timing ({@link SocketOptions.KeepAlive#SYSTEM_TIMING} for the system's),
         * {@code null} for none (the default)
         * @return this
         */
        public B keepAlive(SocketOptions.@Nullable KeepAlive keepAlive) {
            this.keepAlive = keepAlive;
            return self();
        }

        /**
         * @param userTimeout how long sent data may stay unacknowledged before the connection is dropped
         * (TCP_USER_TIMEOUT), {@code null} for the system's rule
         * @return this
         */
        public B userTimeout(@Nullable Duration userTimeout) {
            this.userTimeout = userTimeout;
            return self();
        }

        /**
         * @param linger SO_LINGER in whole seconds: zero resets each connection at its close, a positive time
         * makes a close wait for unsent data (off the workers); {@code null} for the system's graceful close
         * @return this
         */
        public B linger(@Nullable Duration linger) {
            this.linger = linger;
            return self();
        }

        /** @param bytes TCP_NOTSENT_LOWAT: unsent bytes below which a connection is writable, 0 for the system's @return this */
        public B notSentLowWatermark(int bytes) {
            this.notSentLowWatermark = bytes;
            return self();
        }

        /** @param trafficClass IP_TOS or IPV6_TCLASS, 0 to 255, -1 for the system's default @return this */
        public B trafficClass(int trafficClass) {
            this.trafficClass = trafficClass;
            return self();
        }

        /**
         * Sets every socket option at once.
         * @param options the options to take
         * @return this
         */
        public B socketOptions(SocketOptions options) {
            this.tcpNoDelay = options.tcpNoDelay();
            this.receiveBufferSize = options.receiveBufferSize();
            this.sendBufferSize = options.sendBufferSize();
            this.keepAlive = options.keepAlive();
            this.userTimeout = options.userTimeout();
            this.linger = options.linger();
            this.notSentLowWatermark = options.notSentLowWatermark();
            this.trafficClass = options.trafficClass();
            return self();
        }

        /** @param idleTimeout idle time before a connection is closed, {@code null} or zero for none (a TCP listener has an hour unless set) @return this */
        public B idleTimeout(@Nullable Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
            return self();
        }

        /** @param bytes queued write bytes above which a connection stops reading (4 MiB unless set) @return this */
        public B maxPendingWriteBytes(long bytes) {
            this.maxPendingWriteBytes = bytes;
            return self();
        }

        /**
         * @param bytes queued bytes above which a connection is aborted, its handler told (64 MiB unless
         * set), at least {@link #maxPendingWriteBytes(long)}; 0 for no such limit
         * @return this
         */
        public B abortPendingWriteBytes(long bytes) {
            this.abortPendingWriteBytes = bytes;
            return self();
        }

        /**
         * @param shaping the bytes a second the connections may read and write, each and together
         * ({@link Shaping#NONE}, the default, for no limit)
         * @return this
         */
        public B shaping(Shaping shaping) {
            this.shaping = shaping;
            return self();
        }

        /**
         * Sets every setting of the part at once, as another listener's or client's has them.
         * @param connection the settings to take
         * @return this
         */
        public B connection(ConnectionSettings connection) {
            this.group = connection.group();
            this.handlerExecutor = connection.handlerExecutor();
            this.stages.clear();
            this.stages.addAll(connection.stages());
            this.framing = connection.framing();
            this.charset = connection.charset();
            this.messageMapper = connection.messageMapper();
            this.tls = connection.tls();
            socketOptions(connection.socketOptions());
            this.idleTimeout = connection.idleTimeout();
            this.maxPendingWriteBytes = connection.maxPendingWriteBytes();
            this.abortPendingWriteBytes = connection.abortPendingWriteBytes();
            this.shaping = connection.shaping();
            return self();
        }

        /**
         * Checks the settings of the part and makes it, for the listener's or client's {@code build()}.
         * @param owner a listener or a client
         * @param name its name, for the errors
         * @return the settings
         * @throws InvalidSettingException naming the owner and the invalid setting
         */
        protected final ConnectionSettings buildConnection(Scope owner, String name) {
            require(owner, name, this.group != null && !this.group.isBlank(), Setting.GROUP, this.group, "a worker group's name");
            SocketOptions options = new SocketOptions(this.tcpNoDelay, this.receiveBufferSize, this.sendBufferSize, this.keepAlive,
                    this.userTimeout, this.linger, this.notSentLowWatermark, this.trafficClass);
            options.check(owner, name);
            require(owner, name, this.idleTimeout == null || !this.idleTimeout.isNegative(), Setting.IDLE_TIMEOUT, this.idleTimeout,
                    "zero or positive");
            require(owner, name, this.maxPendingWriteBytes > 0, Setting.MAX_PENDING_WRITE_BYTES, this.maxPendingWriteBytes, "positive");
            require(owner, name, this.abortPendingWriteBytes == 0 || this.abortPendingWriteBytes >= this.maxPendingWriteBytes,
                    Setting.ABORT_PENDING_WRITE_BYTES, this.abortPendingWriteBytes, "0 (no limit) or at least maxPendingWriteBytes ("
                            + this.maxPendingWriteBytes + ")");
            Duration idle = (this.idleTimeout == null || this.idleTimeout.isZero()) ? null : this.idleTimeout;
            return new ConnectionSettings(this.group, this.handlerExecutor, this.stages, this.framing, this.charset, this.messageMapper,
                    this.tls, options, idle, this.maxPendingWriteBytes, this.abortPendingWriteBytes, this.shaping);
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }

        private static void require(Scope owner, String name, boolean valid, Setting setting, @Nullable Object value, String expected) {
            if (!valid) {
                throw InvalidSettingException.mustBe(owner, name, setting, value, expected);
            }
        }
    }
}

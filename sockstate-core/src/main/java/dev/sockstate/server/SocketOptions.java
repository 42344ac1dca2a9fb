package dev.sockstate.server;

import dev.sockstate.server.Setting.Scope;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The socket options of a listener's or a client's connections, the part of {@link ConnectionSettings}
 * that operators tune: set on each connection's socket (a listener's once on its listening socket where
 * accepted sockets inherit them). An option left unset keeps the system's default; an option the
 * backend has not is refused when the server is made, naming the backend. A UDP listener takes the
 * buffers and the traffic class; a Unix domain socket the buffers only.
 *
 * @param tcpNoDelay TCP_NODELAY: small writes leave at once rather than wait to be coalesced (Nagle off)
 * @param receiveBufferSize SO_RCVBUF in bytes, 0 for the system's default
 * @param sendBufferSize SO_SNDBUF in bytes, 0 for the system's default
 * @param keepAlive SO_KEEPALIVE with its timing, {@code null} for none (the system's default)
 * @param userTimeout TCP_USER_TIMEOUT: how long sent data may stay unacknowledged before the connection
 * is dropped, {@code null} for the system's rule (retransmissions for about fifteen minutes on Linux)
 * @param linger SO_LINGER: zero resets each connection when it closes (no TIME_WAIT, unsent data
 * dropped); a positive time makes a close wait that long for unsent data to be acknowledged;
 * {@code null} for the system's graceful close in the background
 * @param notSentLowWatermark TCP_NOTSENT_LOWAT: the unsent bytes below which a connection counts as
 * writable, 0 for the system's default (all of the send buffer)
 * @param trafficClass IP_TOS on IPv4 and IPV6_TCLASS on IPv6 (DSCP and ECN bits, 0 to 255), -1 for the
 * system's default
 */
public record SocketOptions(boolean tcpNoDelay, int receiveBufferSize, int sendBufferSize, @Nullable KeepAlive keepAlive,
        @Nullable Duration userTimeout, @Nullable Duration linger, int notSentLowWatermark, int trafficClass) {

    /** The most seconds Linux takes for a keep-alive's idle time and interval. */
    static final long MAX_KEEP_ALIVE_SECONDS = 32767;

    /** The most keep-alive probes Linux sends. */
    static final int MAX_KEEP_ALIVE_COUNT = 127;

    /** The most seconds Windows' {@code struct linger} holds (a {@code u_short}). */
    static final long MAX_LINGER_SECONDS = 65535;

    /** The system's defaults everywhere, but for TCP_NODELAY, which is set. */
    public static final SocketOptions DEFAULTS = new SocketOptions(true, 0, 0, null, null, null, 0, -1);

    /**
     * Checks the values, each alone; whether the backend has the options is checked when the server is made.
     * @param owner a listener or a client
     * @param name its name
     * @throws InvalidSettingException naming the owner and the first invalid option
     */
    void check(Scope owner, String name) {
        require(owner, name, this.receiveBufferSize >= 0, Setting.RECEIVE_BUFFER_SIZE, this.receiveBufferSize, "zero or positive");
        require(owner, name, this.sendBufferSize >= 0, Setting.SEND_BUFFER_SIZE, this.sendBufferSize, "zero or positive");
        if (this.keepAlive != null) {
            this.keepAlive.check(owner, name);
        }
        require(owner, name, this.userTimeout == null || (!this.userTimeout.isNegative() && !this.userTimeout.isZero()
                && this.userTimeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) <= 0), Setting.USER_TIMEOUT, this.userTimeout,
                "positive, at most " + Integer.MAX_VALUE + " ms");
        require(owner, name, this.linger == null || (wholeSeconds(this.linger) && this.linger.getSeconds() >= 0
                && this.linger.getSeconds() <= MAX_LINGER_SECONDS), Setting.LINGER, this.linger,
                "whole seconds from 0 (a reset at close) to " + MAX_LINGER_SECONDS);
        require(owner, name, this.notSentLowWatermark >= 0, Setting.NOT_SENT_LOW_WATERMARK, this.notSentLowWatermark, "zero or positive");
        require(owner, name, this.trafficClass >= -1 && this.trafficClass <= 255, Setting.TRAFFIC_CLASS, this.trafficClass,
                "0 to 255 (DSCP shifted left by two, with the ECN bits), or -1 for the system's default");
    }

    private static boolean wholeSeconds(Duration duration) {
        return duration.getNano() == 0;
    }

    private static void require(Scope owner, String name, boolean valid, Setting setting, @Nullable Object value, String expected) {
        if (!valid) {
            throw InvalidSettingException.mustBe(owner, name, setting, value, expected);
        }
    }

    /**
     * TCP keep-alive: after a connection has been idle for {@code idle}, the system probes its peer every
     * {@code interval} and drops the connection after {@code count} probes go unanswered, so that a peer
     * gone without a FIN (a cut network, a crashed host, a balancer that forgot the flow) is found. Each
     * part left unset keeps the system's default (on Linux two hours, 75 seconds and 9 probes).
     *
     * @param idle idle time before the first probe, whole seconds, {@code null} for the system's
     * @param interval time between probes, whole seconds, {@code null} for the system's
     * @param count unanswered probes before the connection is dropped, 0 for the system's
     */
    public record KeepAlive(@Nullable Duration idle, @Nullable Duration interval, int count) {

        /** Keep-alive on with the system's timing. */
        public static final KeepAlive SYSTEM_TIMING = new KeepAlive(null, null, 0);

        /**
         * @param idle idle time before the first probe
         * @param interval time between probes
         * @param count unanswered probes before the connection is dropped
         * @return keep-alive with that timing: a dead peer is found after {@code idle + count * interval}
         */
        public static KeepAlive of(Duration idle, Duration interval, int count) {
            return new KeepAlive(idle, interval, count);
        }

        void check(Scope owner, String name) {
            String seconds = "whole seconds from 1 to " + MAX_KEEP_ALIVE_SECONDS;
            require(owner, name, this.idle == null || seconds(this.idle), Setting.KEEP_ALIVE, "idle " + this.idle, seconds);
            require(owner, name, this.interval == null || seconds(this.interval), Setting.KEEP_ALIVE, "interval " + this.interval, seconds);
            require(owner, name, this.count >= 0 && this.count <= MAX_KEEP_ALIVE_COUNT, Setting.KEEP_ALIVE, "count " + this.count,
                    "a count of probes from 1 to " + MAX_KEEP_ALIVE_COUNT + ", or 0 for the system's");
        }

        private static boolean seconds(Duration duration) {
            return wholeSeconds(duration) && duration.getSeconds() >= 1 && duration.getSeconds() <= MAX_KEEP_ALIVE_SECONDS;
        }
    }
}

package dev.sockstate.autoconfigure;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;

/**
 * How the connections of a listener or of a client are served: the properties both have, bound under
 * {@code sockstate.listeners.<name>.*} and {@code sockstate.clients.<name>.*} alike, and mapped onto
 * the runtime's {@code ConnectionSettings} in one place ({@link ConnectionSettingsMapper}).
 */
public class ConnectionProperties {

    /** Worker group that serves the connections: default, or one defined under sockstate.groups. */
    private String group = "default";

    /** Where the handler calls run: none (the workers), application (the application task executor) or a TaskExecutor bean's name; sockstate.handler-executor when not set. */
    private @Nullable String handlerExecutor;

    /** Character set of String messages, requests and replies. */
    private Charset charset = StandardCharsets.UTF_8;

    /** How a TCP connection's bytes are cut into messages; a client's reply is one message, so requests need framing. */
    @NestedConfigurationProperty
    private final FramingProperties framing = new FramingProperties();

    /** Whether to set TCP_NODELAY on each connection. */
    private boolean tcpNoDelay = true;

    /** Socket receive buffer size (SO_RCVBUF); the system's default when not set. */
    private @Nullable DataSize receiveBufferSize;

    /** Socket send buffer size (SO_SNDBUF); the system's default when not set. */
    private @Nullable DataSize sendBufferSize;

    /** TCP keep-alive: probes that find a peer gone without a word (a cut network, a crashed host, a balancer that forgot the flow). */
    @NestedConfigurationProperty
    private final KeepAlive keepAlive = new KeepAlive();

    /** How long sent data may stay unacknowledged before the connection is dropped (TCP_USER_TIMEOUT, Linux); the system's rule, about 15 minutes of retransmissions, when not set. */
    private @Nullable Duration userTimeout;

    /** SO_LINGER in whole seconds: 0 resets each connection at its close (no TIME_WAIT, unsent data dropped); a positive time makes a close wait that long for unsent data, off the workers; the system's graceful close when not set. */
    @DurationUnit(ChronoUnit.SECONDS)
    private @Nullable Duration linger;

    /** Unsent bytes below which a connection counts as writable (TCP_NOTSENT_LOWAT, Linux): less data queued in the kernel, lower latency for what is written next; the system's default when not set. */
    private @Nullable DataSize notSentLowWatermark;

    /** Traffic class of the packets sent, 0 to 255: IP_TOS on IPv4, IPV6_TCLASS on IPv6 (DSCP shifted left by two, with the ECN bits); the system's default when not set. */
    private @Nullable Integer trafficClass;

    /** How long a connection may go without traffic before it is closed (a client's is connected again); 0 for never; a TCP listener's 1h and a client's never when not set. */
    private @Nullable Duration idleTimeout;

    /** Queued write bytes above which a connection stops reading until the queue drains (and a client's takes no more requests). */
    private DataSize maxPendingWriteBytes = DataSize.ofMegabytes(4);

    /** Queued write bytes above which a connection is aborted, its handler told: writes that do not wait for isWritable(); 0 for no limit; 64MB for a listener's and none for a client's when not set. */
    private @Nullable DataSize abortPendingWriteBytes;

    /** Traffic shaping: the bytes a second the connections may read and write, each and together. */
    private final Shaping shaping = new Shaping();

    public String getGroup() {
        return this.group;
    }

    public void setGroup(String group) {
        this.group = group;
    }

    public @Nullable String getHandlerExecutor() {
        return this.handlerExecutor;
    }

    public void setHandlerExecutor(@Nullable String handlerExecutor) {
        this.handlerExecutor = handlerExecutor;
    }

    public Charset getCharset() {
        return this.charset;
    }

    public void setCharset(Charset charset) {
        this.charset = charset;
    }

    public FramingProperties getFraming() {
        return this.framing;
    }

    public boolean isTcpNoDelay() {
        return this.tcpNoDelay;
    }

    public void setTcpNoDelay(boolean tcpNoDelay) {
        this.tcpNoDelay = tcpNoDelay;
    }

    public @Nullable DataSize getReceiveBufferSize() {
        return this.receiveBufferSize;
    }

    public void setReceiveBufferSize(@Nullable DataSize receiveBufferSize) {
        this.receiveBufferSize = receiveBufferSize;
    }

    public @Nullable DataSize getSendBufferSize() {
        return this.sendBufferSize;
    }

    public void setSendBufferSize(@Nullable DataSize sendBufferSize) {
        this.sendBufferSize = sendBufferSize;
    }

    public KeepAlive getKeepAlive() {
        return this.keepAlive;
    }

    public @Nullable Duration getUserTimeout() {
        return this.userTimeout;
    }

    public void setUserTimeout(@Nullable Duration userTimeout) {
        this.userTimeout = userTimeout;
    }

    public @Nullable Duration getLinger() {
        return this.linger;
    }

    public void setLinger(@Nullable Duration linger) {
        this.linger = linger;
    }

    public @Nullable DataSize getNotSentLowWatermark() {
        return this.notSentLowWatermark;
    }

    public void setNotSentLowWatermark(@Nullable DataSize notSentLowWatermark) {
        this.notSentLowWatermark = notSentLowWatermark;
    }

    public @Nullable Integer getTrafficClass() {
        return this.trafficClass;
    }

    public void setTrafficClass(@Nullable Integer trafficClass) {
        this.trafficClass = trafficClass;
    }

    public @Nullable Duration getIdleTimeout() {
        return this.idleTimeout;
    }

    public void setIdleTimeout(@Nullable Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    public DataSize getMaxPendingWriteBytes() {
        return this.maxPendingWriteBytes;
    }

    public void setMaxPendingWriteBytes(DataSize maxPendingWriteBytes) {
        this.maxPendingWriteBytes = maxPendingWriteBytes;
    }

    public @Nullable DataSize getAbortPendingWriteBytes() {
        return this.abortPendingWriteBytes;
    }

    public void setAbortPendingWriteBytes(@Nullable DataSize abortPendingWriteBytes) {
        this.abortPendingWriteBytes = abortPendingWriteBytes;
    }

    public Shaping getShaping() {
        return this.shaping;
    }

    /** Traffic shaping: each rate is a size a second, no limit when not set; changeable at run time. */
    public static class Shaping {

        /** Bytes a second each connection may read from its socket; no limit when not set. */
        private @Nullable DataSize connectionRead;

        /** Bytes a second each connection may write to its socket; no limit when not set. */
        private @Nullable DataSize connectionWrite;

        /** Bytes a second the connections may read together; no limit when not set. */
        private @Nullable DataSize totalRead;

        /** Bytes a second the connections may write together; no limit when not set. */
        private @Nullable DataSize totalWrite;

        public @Nullable DataSize getConnectionRead() {
            return this.connectionRead;
        }

        public void setConnectionRead(@Nullable DataSize connectionRead) {
            this.connectionRead = connectionRead;
        }

        public @Nullable DataSize getConnectionWrite() {
            return this.connectionWrite;
        }

        public void setConnectionWrite(@Nullable DataSize connectionWrite) {
            this.connectionWrite = connectionWrite;
        }

        public @Nullable DataSize getTotalRead() {
            return this.totalRead;
        }

        public void setTotalRead(@Nullable DataSize totalRead) {
            this.totalRead = totalRead;
        }

        public @Nullable DataSize getTotalWrite() {
            return this.totalWrite;
        }

        public void setTotalWrite(@Nullable DataSize totalWrite) {
            this.totalWrite = totalWrite;
        }
    }

    /** TCP keep-alive of each connection: on when enabled or when any of its timing is set. */
    public static class KeepAlive {

        /** Whether to probe idle connections (SO_KEEPALIVE); on when idle, interval or count is set. */
        private @Nullable Boolean enabled;

        /** Idle time before the first probe, in whole seconds (TCP_KEEPIDLE); the system's (two hours on Linux) when not set. */
        @DurationUnit(ChronoUnit.SECONDS)
        private @Nullable Duration idle;

        /** Time between probes, in whole seconds (TCP_KEEPINTVL); the system's (75 seconds on Linux) when not set. */
        @DurationUnit(ChronoUnit.SECONDS)
        private @Nullable Duration interval;

        /** Unanswered probes after which the connection is dropped (TCP_KEEPCNT); the system's (9 on Linux) when not set. */
        private @Nullable Integer count;

        public @Nullable Boolean getEnabled() {
            return this.enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable Duration getIdle() {
            return this.idle;
        }

        public void setIdle(@Nullable Duration idle) {
            this.idle = idle;
        }

        public @Nullable Duration getInterval() {
            return this.interval;
        }

        public void setInterval(@Nullable Duration interval) {
            this.interval = interval;
        }

        public @Nullable Integer getCount() {
            return this.count;
        }

        public void setCount(@Nullable Integer count) {
            this.count = count;
        }
    }
}

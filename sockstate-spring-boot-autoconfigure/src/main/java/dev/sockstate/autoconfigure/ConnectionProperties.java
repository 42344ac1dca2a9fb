package dev.sockstate.autoconfigure;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
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

    /** How long a connection may go without traffic before it is closed (a client's is connected again); 0 for never; a TCP listener's 1h and a client's never when not set. */
    private @Nullable Duration idleTimeout;

    /** Queued write bytes above which a connection stops reading until the queue drains (and a client's takes no more requests). */
    private DataSize maxPendingWriteBytes = DataSize.ofMegabytes(4);

    /** Queued write bytes above which a connection is aborted, its handler told: writes that do not wait for isWritable(); 0 for no limit; 64MB for a listener's and none for a client's when not set. */
    private @Nullable DataSize abortPendingWriteBytes;

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
}

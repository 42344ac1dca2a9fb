package dev.sockstate.autoconfigure;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A TCP listener's heartbeat, bound under {@code sockstate.listeners.<name>.heartbeat}: a ping after a
 * quiet spell, and the connection aborted when no byte answers it in time.
 */
public class HeartbeatProperties {

    /** Time without a byte from the peer after which a ping goes out; no heartbeat when not set. */
    private @Nullable Duration idle;

    /** How long an answer (any byte) is awaited after the ping before the connection is aborted. */
    private Duration timeout = Duration.ofSeconds(10);

    /** The ping's text, in the listener's charset, its escapes \r, \n, \t, \\ and \xHH read ("PING\r\n", say). */
    private @Nullable String ping;

    /** Name of a Heartbeat.Pinger bean that makes each connection's ping, instead of a fixed text. */
    private @Nullable String pinger;

    public @Nullable Duration getIdle() {
        return this.idle;
    }

    public void setIdle(@Nullable Duration idle) {
        this.idle = idle;
    }

    public Duration getTimeout() {
        return this.timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public @Nullable String getPing() {
        return this.ping;
    }

    public void setPing(@Nullable String ping) {
        this.ping = ping;
    }

    public @Nullable String getPinger() {
        return this.pinger;
    }

    public void setPinger(@Nullable String pinger) {
        this.pinger = pinger;
    }
}

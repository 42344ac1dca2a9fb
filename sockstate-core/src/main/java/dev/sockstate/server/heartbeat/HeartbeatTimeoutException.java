package dev.sockstate.server.heartbeat;

import java.io.IOException;
import java.time.Duration;

/** A connection's peer sent nothing within a heartbeat's timeout after its ping: the connection is aborted with it. */
public class HeartbeatTimeoutException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * @param idle the quiet time after which the ping went out
     * @param timeout how long an answer was awaited
     */
    public HeartbeatTimeoutException(Duration idle, Duration timeout) {
        super("No byte came within " + timeout.toMillis() + " ms of a heartbeat's ping, sent after " + idle.toMillis()
                + " ms without one");
    }
}

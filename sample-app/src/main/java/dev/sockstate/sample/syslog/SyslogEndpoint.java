package dev.sockstate.sample.syslog;

import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/** {@code /actuator/syslog}: the latest syslog messages received, oldest first. */
@Endpoint(id = "syslog")
public class SyslogEndpoint {

    private final SyslogReceiver receiver;

    /** @param receiver what was received */
    public SyslogEndpoint(SyslogReceiver receiver) {
        this.receiver = receiver;
    }

    /** @return the latest messages */
    @ReadOperation
    public List<SyslogMessage> latest() {
        return this.receiver.latest();
    }
}

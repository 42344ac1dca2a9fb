package dev.sockstate.sample.syslog;

import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the syslog listeners received: each message counted by facility and severity in
 * {@code syslog.messages}, and the latest {@value #KEPT} kept for the {@code syslog} endpoint.
 */
public class SyslogReceiver {

    /** Messages kept for the endpoint. */
    static final int KEPT = 50;

    private static final Logger logger = LoggerFactory.getLogger(SyslogReceiver.class);

    private final MeterRegistry registry;

    private final Deque<SyslogMessage> latest = new ArrayDeque<>();

    /** @param registry where the counts go */
    public SyslogReceiver(MeterRegistry registry) {
        this.registry = registry;
    }

    /** @param message a message that arrived, by TCP or UDP */
    void received(SyslogMessage message) {
        Counter.builder("syslog.messages").description("Syslog messages received").tag("facility", message.facility())
                .tag("severity", message.severity()).register(this.registry).increment();
        synchronized (this.latest) {
            if (this.latest.size() == KEPT) {
                this.latest.removeFirst();
            }
            this.latest.addLast(message);
        }
        logger.debug("{}", message);
    }

    /** @return the latest messages, oldest first */
    public List<SyslogMessage> latest() {
        synchronized (this.latest) {
            return new ArrayList<>(this.latest);
        }
    }

    /** A listener's handler: each message goes to the receiver. */
    abstract static class Listening {

        private final SyslogReceiver receiver;

        Listening(SyslogReceiver receiver) {
            this.receiver = receiver;
        }

        @OnMessage
        void message(SyslogMessage message) {
            this.receiver.received(message);
        }
    }

    /** The TCP listener: one message per RFC 6587 frame. */
    @SocketHandler("syslog")
    static class OverTcp extends Listening {

        OverTcp(SyslogReceiver receiver) {
            super(receiver);
        }
    }

    /** The UDP listener: one message per datagram. */
    @SocketHandler("syslog-udp")
    static class OverUdp extends Listening {

        OverUdp(SyslogReceiver receiver) {
            super(receiver);
        }
    }
}

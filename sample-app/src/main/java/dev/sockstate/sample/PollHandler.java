package dev.sockstate.sample;

import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnClose;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnHangup;
import dev.sockstate.spring.handler.SocketHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference's first scenario, a replacement for polling: one thread, persistent level-triggered
 * registrations. It receives client data until the client hangs up, acknowledging what it counted.
 */
// tag::poll-handler[]
@SocketHandler("poll")
public class PollHandler {

    private static final Logger logger = LoggerFactory.getLogger(PollHandler.class);

    @OnData
    String received(Connection connection, byte[] data) {
        long total = ((connection.attachment() instanceof Long counted) ? counted : 0L) + data.length;
        connection.attach(total);
        logger.debug("Received client data: {} bytes on {}", data.length, connection);
        return "received " + total + " bytes\n";
    }

    @OnHangup
    void hungUp(Connection connection) {
        logger.info("Client hung up after {} bytes: {}", connection.attachment(), connection);
        connection.close();
    }

    @OnClose
    void closed(Connection connection) {
        logger.debug("Closed {}", connection);
    }
}
// end::poll-handler[]

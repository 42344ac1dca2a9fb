package dev.sockstate.boot.test.slice;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.SocketHandlerTest;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.engine.SocketServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestPropertySource;

/**
 * {@link SocketHandlerTest} over an application with a handler, a converter and a service: the
 * handler and the converter are scanned, the service is not, the server is built from the
 * configuration and not started, and the listener's connections run in memory.
 */
@SocketHandlerTest
@TestPropertySource(properties = { "sockstate.listeners.upper.port=7", "sockstate.listeners.upper.framing.type=line" })
class SocketHandlerTestTests {

    @Autowired
    private SocketServer server;

    @Autowired
    private ApplicationContext context;

    @Test
    void onlyHandlersAndMessageTypesAreScannedAndNoSocketIsOpened() {
        assertThat(this.context.getBeanNamesForType(Upper.class)).hasSize(1);
        assertThat(this.context.getBeanNamesForType(Shout.class)).hasSize(1);
        assertThat(this.context.getBeanNamesForType(Mailer.class)).as("a service is not a handler's").isEmpty();
        assertThat(this.server.isRunning()).isFalse();
        assertThat(this.server.listeners()).isEmpty();
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.server.listenerSettings("upper"))) {
            connection.writeInbound("quiet\n");
            assertThat(connection.readAllOutboundText()).isEqualTo("QUIET!\n");
        }
    }
}

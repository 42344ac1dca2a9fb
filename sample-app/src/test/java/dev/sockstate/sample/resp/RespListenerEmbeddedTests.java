package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.engine.SocketServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The {@code resp} listener as the application configures it (its codec bean, its handler bean,
 * its properties), one connection at a time without a socket: {@link EmbeddedConnection} over the
 * listener's settings from the running {@link SocketServer}.
 */
@SpringBootTest(properties = { "management.server.port=0", "server.port=0" })
class RespListenerEmbeddedTests {

    @Autowired
    private SocketServer server;

    @Test
    void aPipelineCutAnywhereIsAnsweredInOrder() {
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.server.listenerSettings("resp"))) {
            connection.writeInbound("*3\r\n$3\r\nSET\r\n$8\r\nembedded\r\n$3\r\none\r\n*2\r\n$3\r\nGE");
            assertThat(connection.readAllOutboundText()).isEqualTo("+OK\r\n");
            connection.writeInbound("T\r\n$8\r\nembedded\r\nPING\r\n");
            assertThat(connection.readAllOutboundText()).isEqualTo("$3\r\none\r\n+PONG\r\n");
            assertThat(connection.isOpen()).isTrue();
        }
    }

    @Test
    void aMalformedRequestIsAnsweredAsRedisAnswersItThenClosed() {
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.server.listenerSettings("resp"))) {
            connection.writeInbound("*x\r\n");
            assertThat(connection.readAllOutboundText()).startsWith("-ERR Protocol error: invalid multibulk length");
            assertThat(connection.isClosed()).isTrue();
        }
    }
}

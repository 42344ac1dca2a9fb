package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.SocketHandlerTest;
import dev.sockstate.sample.syslog.SyslogConfiguration;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.engine.SocketServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The sample's handlers in a test slice: {@code @SocketHandlerTest} loads the handlers and the RESP
 * codec (the application class's beans), the test imports the syslog configuration (a slice scans no
 * configuration class), the server is built from {@code application.yml} without starting it (no
 * port is bound), and the {@code resp} listener runs in memory.
 */
// tag::slice-annotations[]
@SocketHandlerTest
@Import(SyslogConfiguration.class)
// end::slice-annotations[]
class RespHandlerSliceTests {

    // tag::slice-members[]
    @Autowired
    private SocketServer server;

    @Test
    void theRespListenerAnswersInMemoryWithNoSocketBound() {
        assertThat(this.server.isRunning()).isFalse();
        assertThat(this.server.listeners()).as("nothing bound").isEmpty();
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.server.listenerSettings("resp"))) {
            connection.writeInbound("*3\r\n$3\r\nSET\r\n$5\r\nslice\r\n$2\r\nok\r\n*2\r\n$3\r\nGET\r\n$5\r\nslice\r\n");
            assertThat(connection.readAllOutboundText()).isEqualTo("+OK\r\n$2\r\nok\r\n");
        }
    }
    // end::slice-members[]

    @Test
    void theProxyWithNoPasswordTurnsAwayAClientOfAnotherHostAndServesOneOfItsOwn() {
        try (EmbeddedConnection remote = EmbeddedConnection.builder(this.server.listenerSettings("resp-proxy"))
                .remoteAddress(new InetSocketAddress("192.0.2.7", 50123)).open()) {
            assertThat(remote.readAllOutboundText()).startsWith("-DENIED ").contains("sample.resp-proxy.password");
            remote.writeInbound("PING\r\n");
            assertThat(remote.readAllOutboundText()).as("nothing served").isEmpty();
            assertThat(remote.isClosed()).isTrue();
        }
        try (EmbeddedConnection local = EmbeddedConnection.builder(this.server.listenerSettings("resp-proxy"))
                .remoteAddress(new InetSocketAddress("127.0.0.1", 50124)).open()) {
            local.writeInbound("AUTH anything\r\n");
            assertThat(local.readAllOutboundText()).startsWith("-ERR AUTH <password> called without any password configured");
            local.writeInbound("AUTH default anything\r\nAUTH\r\n");
            assertThat(local.readAllOutboundText()).as("as Redis answers with no password set for its default user")
                    .isEqualTo("+OK\r\n-ERR wrong number of arguments for 'auth' command\r\n");
            assertThat(local.isOpen()).isTrue();
        }
    }

    /** What the syslog receiver counts with; the slice has no metrics auto-configuration. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Meters {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ListenerSettings;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ConnectionExtras}: a plain connection makes none until something seldom needed is asked
 * of it, and threads that ask at once all get the one that was stored, so that nothing one of them
 * keeps there (an attribute, a cached address) is lost.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionExtrasTest {

    private static final int THREADS = 4;

    private static final int ROUNDS = 500;

    private static ListenerSettings echo() {
        return ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).portNumber(7000).handler(new EchoHandler()).build();
    }

    @Test
    void anEchoedConnectionMakesNoneUntilAnAddressIsAsked() {
        try (EmbeddedConnection embedded = EmbeddedConnection.open(echo())) {
            embedded.writeInbound("hello");
            assertThat(embedded.readOutboundText()).isEqualTo("hello");
            TcpConnection connection = (TcpConnection) embedded.connection();
            assertThat(connection.extrasIfMade()).as("the extras of a plain connection that echoed").isNull();
            assertThat(connection.tlsSession()).isNull();
            assertThat(connection.proxyHeader()).isNull();
            assertThat(connection.peerCredentials()).isNull();
            assertThat(connection.failure()).isNull();
            assertThat(connection.connectedHost()).isNull();
            assertThat(connection.extrasIfMade()).as("the extras once only read").isNull();
            SocketAddress remote = connection.remoteAddress();
            assertThat(connection.extrasIfMade()).as("the extras once an address was asked").isNotNull();
            assertThat(connection.remoteAddress()).isSameAs(remote);
        }
    }

    @Test
    void threadsThatFirstAskAtOnceShareOneAndLoseNothing() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                try (EmbeddedConnection embedded = EmbeddedConnection.open(echo())) {
                    TcpConnection connection = (TcpConnection) embedded.connection();
                    CyclicBarrier start = new CyclicBarrier(THREADS);
                    List<Future<Object[]>> seen = new ArrayList<>();
                    for (int i = 0; i < THREADS; i++) {
                        String key = "thread " + i;
                        seen.add(threads.submit(() -> {
                            start.await(10, TimeUnit.SECONDS);
                            ConnectionExtras extras = connection.extras();
                            Map<String, Object> attributes = connection.attributes();
                            attributes.put(key, Boolean.TRUE);
                            return new Object[] { extras, attributes, connection.remoteAddress() };
                        }));
                    }
                    for (Future<Object[]> each : seen) {
                        Object[] got = each.get(10, TimeUnit.SECONDS);
                        assertThat(got[0]).as("the extras a thread got").isSameAs(connection.extrasIfMade());
                        assertThat(got[1]).as("the attributes a thread got").isSameAs(connection.attributes());
                        assertThat(got[2]).as("the address a thread got").isEqualTo(connection.remoteAddress());
                    }
                    assertThat(connection.attributes()).as("what every thread kept").hasSize(THREADS);
                }
            }
        }
        finally {
            threads.shutdownNow();
        }
    }
}

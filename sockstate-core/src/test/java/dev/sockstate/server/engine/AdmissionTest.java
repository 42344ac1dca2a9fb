package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.admission.Refusal;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A listener's admission on the real backend, with peers bound to addresses of 127.0.0.0/8 so that
 * each is a source of its own: a refused connection is closed before its handler hears of it and
 * counted by reason; the counts per source are given back as connections end and kept for a bounded
 * number of sources; behind a trusted PROXY protocol sender, the rules judge the client its header names.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionTest {

    private final ServerFixture fixture = new ServerFixture();

    private final List<Socket> peers = new ArrayList<>();

    /** The address of each connection whose handler opened, as the handler sees it. */
    private final Queue<String> opened = new ConcurrentLinkedQueue<>();

    @AfterEach
    void stop() throws IOException {
        for (Socket peer : this.peers) {
            peer.close();
        }
        this.fixture.close();
    }

    @Test
    void aDeniedSourceIsClosedUnheardWhileOthersAreServed() throws Exception {
        SocketServer server = serve(Admission.builder().deny(List.of("127.0.0.66", "10.0.0.0/8")).build());
        assertRefusedFrom("127.0.0.66", server.listener("guarded").portNumber());
        assertServed(connectFrom("127.0.0.67", server));
        assertThat(server.listener("guarded").rejectedBy()).containsExactly(Map.entry(Refusal.DENIED, 1L));
        assertThat(this.opened).containsExactly("127.0.0.67");
    }

    @Test
    void anAllowListAdmitsItsRangesOnly() throws Exception {
        SocketServer server = serve(Admission.builder().allow(List.of("127.0.0.0/30")).build());
        assertServed(connectFrom("127.0.0.2", server));
        assertRefusedFrom("127.0.0.5", server.listener("guarded").portNumber());
        assertThat(server.listener("guarded").rejectedBy()).containsExactly(Map.entry(Refusal.DENIED, 1L));
    }

    @Test
    void aSourceAtItsCapIsRefusedUntilOneOfItsConnectionsEnds() throws Exception {
        SocketServer server = serve(Admission.builder().maxConnectionsPerSource(3).build());
        List<Socket> first = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Socket peer = connectFrom("127.0.0.7", server);
            assertServed(peer);
            first.add(peer);
        }
        assertRefusedFrom("127.0.0.7", server.listener("guarded").portNumber());
        assertServed(connectFrom("127.0.0.8", server));
        first.get(0).close();
        await(() -> server.listener("guarded").activeConnections() == 3, "the closed connection to end");
        assertServed(connectFrom("127.0.0.7", server));
        assertThat(server.listener("guarded").rejectedBy()).containsExactly(Map.entry(Refusal.SOURCE_LIMIT, 1L));
    }

    @Test
    void aSourcePrefixCountsANetworkAsOneSource() throws Exception {
        SocketServer server = serve(Admission.builder().maxConnectionsPerSource(2).sourcePrefixes(24, 64).build());
        assertServed(connectFrom("127.0.3.9", server));
        assertServed(connectFrom("127.0.3.10", server));
        assertRefusedFrom("127.0.3.11", server.listener("guarded").portNumber());
        assertServed(connectFrom("127.0.4.11", server));
    }

    @Test
    void aSourceFasterThanItsRateIsRefusedAndOthersAreNot() throws Exception {
        SocketServer server = serve(Admission.builder().sourceRate(new Rate(0.001, 2)).build());
        assertServed(connectFrom("127.0.0.12", server));
        assertServed(connectFrom("127.0.0.12", server));
        assertRefusedFrom("127.0.0.12", server.listener("guarded").portNumber());
        assertServed(connectFrom("127.0.0.13", server));
        assertThat(server.listener("guarded").rejectedBy()).containsExactly(Map.entry(Refusal.SOURCE_RATE, 1L));
    }

    @Test
    void aListenerFasterThanItsRateRefusesWhateverTheSource() throws Exception {
        SocketServer server = serve(Admission.builder().listenerRate(new Rate(0.001, 2)).build());
        assertServed(connectFrom("127.0.0.14", server));
        assertServed(connectFrom("127.0.0.15", server));
        assertRefusedFrom("127.0.0.16", server.listener("guarded").portNumber());
        assertThat(server.listener("guarded").rejectedBy()).containsExactly(Map.entry(Refusal.LISTENER_RATE, 1L));
    }

    @Test
    void theCountsOfSourcesWithoutOpenConnectionsAreKeptForABoundedNumberOfSources() throws Exception {
        SocketServer server = serve(Admission.builder().maxConnectionsPerSource(1).sourceRate(new Rate(1000, 10)).maxSources(20).build());
        for (int i = 1; i <= 60; i++) {
            try (Socket peer = connectFrom("127.0.8." + i, server)) {
                assertServed(peer);
            }
        }
        await(() -> server.listener("guarded").activeConnections() == 0, "every connection to end");
        AdmissionControl admission = server.admission("guarded");
        assertThat(admission.activeSources()).isZero();
        assertThat(admission.sources()).as("sources kept after 60 came and went").isEqualTo(20);
    }

    @Test
    void behindATrustedProxyTheRulesJudgeTheClientItsHeaderNames() throws Exception {
        ListenerSettings listener = ServerFixture.tcp("relayed").handler(echo())
                .proxyProtocol(ProxyProtocol.accept(ProxyProtocol.Version.V1).withTrustedProxies(Set.of("127.0.0.1/32")))
                .admission(Admission.builder().maxConnectionsPerSource(1).deny(List.of("198.51.100.0/24")).build()).build();
        SocketServer server = this.fixture.start(1, listener);
        int port = server.listener("relayed").portNumber();
        Socket first = relayed(port, "203.0.113.7");
        assertServed(first);
        assertRefused(relayed(port, "203.0.113.7"));
        assertRefused(relayed(port, "198.51.100.9"));
        assertServed(relayed(port, "203.0.113.8"));
        assertThat(server.listener("relayed").rejectedBy()).containsOnly(Map.entry(Refusal.SOURCE_LIMIT, 1L),
                Map.entry(Refusal.DENIED, 1L));
        assertThat(this.opened).as("the clients served, the trusted sender itself no source").containsExactlyInAnyOrder("203.0.113.7",
                "203.0.113.8");
    }

    /** @return a connection from the trusted sender on 127.0.0.1 whose PROXY protocol header names the client */
    private Socket relayed(int port, String client) throws IOException {
        Socket peer = connectFrom("127.0.0.1", port);
        peer.getOutputStream().write(("PROXY TCP4 " + client + " 127.0.0.1 40000 " + port + "\r\n").getBytes(StandardCharsets.US_ASCII));
        return peer;
    }

    private SocketServer serve(Admission admission) {
        return this.fixture.start(2, ServerFixture.tcp("guarded").handler(echo()).admission(admission).build());
    }

    private Socket connectFrom(String source, SocketServer server) throws IOException {
        return connectFrom(source, server.listener("guarded").portNumber());
    }

    private Socket connectFrom(String source, int port) throws IOException {
        Socket peer = new Socket();
        this.peers.add(peer);
        peer.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        peer.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        peer.setSoTimeout(10_000);
        return peer;
    }

    private static void assertServed(Socket peer) throws IOException {
        peer.getOutputStream().write('x');
        assertThat(peer.getInputStream().read()).as("the echo").isEqualTo('x');
    }

    /**
     * A peer the listener refuses as it accepts is reset: its connect fails, or its connection ends without
     * an answer.
     */
    private void assertRefusedFrom(String source, int port) throws IOException {
        Socket peer;
        try {
            peer = connectFrom(source, port);
        }
        catch (SocketException ex) {
            assertThat(ex).hasMessageContaining("reset");
            return;
        }
        assertRefused(peer);
    }

    /** A refused peer's connection ends without an answer: an end of stream, or a reset. */
    private static void assertRefused(Socket peer) throws IOException {
        InputStream in = peer.getInputStream();
        int read;
        try {
            peer.getOutputStream().write('x');
            read = in.read();
        }
        catch (SocketException ex) {
            read = -1;
        }
        assertThat(read).as("what a refused peer reads").isEqualTo(-1);
    }

    private ConnectionHandler echo() {
        return new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                AdmissionTest.this.opened.add(((InetSocketAddress) connection.remoteAddress()).getAddress().getHostAddress());
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        };
    }
}

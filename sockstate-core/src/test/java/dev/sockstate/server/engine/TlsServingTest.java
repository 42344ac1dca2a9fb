package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.Setting;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.tls.Tls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.ArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** TLS as the first stage of a connection's pipeline, on the real backend over loopback, with JDK clients. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsServingTest {

    private final TlsFixture fixture;

    private final ExecutorService tasks = Executors.newFixedThreadPool(2, (task) -> new Thread(task, "test-tls-task"));

    TlsServingTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.tasks.shutdownNow();
    }

    @Test
    void anSslSocketEchoesOverTls13AndTheHandlerSeesTheSession() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(client, "hello over TLS 1.3")).isEqualTo("hello over TLS 1.3");
        SSLSession session = handler.sessions.peek();
        assertThat(session).as("the handler's Connection.tlsSession() in onOpen").isNotNull();
        assertThat(session.getProtocol()).isEqualTo("TLSv1.3");
        assertThat(session.getCipherSuite()).isEqualTo(client.getSession().getCipherSuite()).startsWith("TLS_");
        assertThat(this.fixture.handshakes).containsExactly("ok");
    }

    @Test
    void anSslSocketEchoesOverTls12() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.2");
        assertThat(TlsFixture.echo(client, "hello over TLS 1.2")).isEqualTo("hello over TLS 1.2");
        assertThat(handler.sessions.peek().getProtocol()).isEqualTo("TLSv1.2");
        assertThat(handler.sessions.peek().getCipherSuite()).isEqualTo(client.getSession().getCipherSuite()).contains("ECDSA");
    }

    @Test
    void aServerThatSpeaksFirstGreetsAClientThatSendsNothingAfterItsHandshake() throws Exception {
        // The client's Finished is the last it sends before the greeting.
        SocketServer server = this.fixture.start(this.fixture.serverTls(), new TlsFixture.Greeting());
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLSocket client = this.fixture.client(server, null, protocol);
            client.startHandshake();
            String greeting = TlsFixture.Greeting.GREETING;
            assertThat(new String(TlsFixture.readFully(client.getInputStream(), greeting.length()), StandardCharsets.US_ASCII))
                    .as("the greeting, " + protocol).isEqualTo(greeting);
        }
        assertThat(this.fixture.handshakes).containsExactly("ok", "ok");
    }

    @Test
    void manyRecordsEachWayArriveWholeAndInOrder() throws Exception {
        SocketServer server = this.fixture.start(this.fixture.serverTls(), new TlsFixture.Recording());
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        byte[] sent = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(sent);
        Thread writer = new Thread(() -> {
            try {
                client.getOutputStream().write(sent);
            }
            catch (IOException ex) {
                throw new IllegalStateException(ex);
            }
        });
        writer.start();
        byte[] received = TlsFixture.readFully(client.getInputStream(), sent.length);
        writer.join();
        assertThat(received).isEqualTo(sent);
    }

    @Test
    void manyClientsHandshakingAtOnceAreAllServed() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        ExecutorService clients = Executors.newFixedThreadPool(16);
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 48; i++) {
                String protocol = (i % 3 == 0) ? "TLSv1.2" : "TLSv1.3";
                String text = "client " + i;
                answers.add(clients.submit(() -> {
                    try (SSLSocket client = this.fixture.client(server, (text.endsWith("7")) ? "client" : null, protocol)) {
                        return TlsFixture.echo(client, text) + TlsFixture.echo(client, "!");
                    }
                }));
            }
            for (int i = 0; i < answers.size(); i++) {
                assertThat(answers.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("client " + i + "!");
            }
        }
        finally {
            clients.shutdownNow();
        }
        ServerFixture.await(() -> handler.closed.get() == 48, "every connection closed");
        assertThat(this.fixture.handshakes).hasSize(48).containsOnly("ok");
        assertThat(handler.errors).isEmpty();
    }

    @Test
    void aPeerThatResetsRightAfterItsCloseNotifyEndsTheConnectionWithoutAnErrorForTheHandler() throws Exception {
        // A client that closes with data unread (or lingering zero) resets the connection after its
        // close_notify: the conversation ended well, and the server's answering close_notify finds the
        // socket reset (or the next read does).
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        for (int i = 0; i < 10; i++) {
            SSLSocket client = this.fixture.client(server, null, (i % 2 == 0) ? "TLSv1.3" : "TLSv1.2");
            assertThat(TlsFixture.echo(client, "the whole conversation")).isEqualTo("the whole conversation");
            client.setSoLinger(true, 0);
            client.close();
        }
        ServerFixture.await(() -> handler.closed.get() == 10, "every connection closed");
        assertThat(handler.errors).as("errors the handler heard of").isEmpty();
    }

    @Test
    void delegatedTasksRunOnTheTaskExecutorNeverOnAWorker() throws Exception {
        Queue<String> threads = new ConcurrentLinkedQueue<>();
        Tls tls = this.fixture.serverTls().withTaskExecutor((task) -> this.tasks.execute(() -> {
            threads.add(Thread.currentThread().getName());
            task.run();
        }));
        Queue<String> handlerThreads = new ConcurrentLinkedQueue<>();
        SocketServer server = this.fixture.start(tls, new TlsFixture.Recording() {

            @Override
            public void onOpen(dev.sockstate.server.Connection connection) throws Exception {
                handlerThreads.add(Thread.currentThread().getName());
                super.onOpen(connection);
            }
        });
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLSocket client = this.fixture.client(server, null, protocol);
            assertThat(TlsFixture.echo(client, protocol)).isEqualTo(protocol);
        }
        assertThat(threads).as("tasks ran on the executor").isNotEmpty().allMatch("test-tls-task"::equals);
        assertThat(handlerThreads).as("the stage went on on the workers").hasSize(2).allMatch((name) -> name.startsWith("sockstate-default-"));
    }

    @Test
    void theDefaultTaskPoolIsNoWorker() throws Exception {
        Queue<String> threads = new ConcurrentLinkedQueue<>();
        Tls tls = this.fixture.serverTls();
        SocketServer server = this.fixture.start(tls.withTaskExecutor((task) -> tls.taskExecutor().execute(() -> {
            threads.add(Thread.currentThread().getName());
            task.run();
        })), new TlsFixture.Recording());
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(client, "pooled")).isEqualTo("pooled");
        assertThat(threads).isNotEmpty().allMatch((name) -> name.startsWith("sockstate-tls-task-"));
    }

    @Test
    void theClientSeesACleanCloseNotifyWhenTheHandlerCloses() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        handler.closeAfterEcho = true;
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLSocket client = this.fixture.client(server, null, protocol);
            assertThat(TlsFixture.echo(client, "bye")).isEqualTo("bye");
            assertThat(client.getInputStream().read()).as("end of stream after close_notify, " + protocol).isEqualTo(-1);
        }
        ServerFixture.await(() -> handler.closed.get() == 2, "both closed");
    }

    @Test
    void aGracefulStopSendsCloseNotify() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(client, "before the stop")).isEqualTo("before the stop");
        server.stop(Duration.ofSeconds(5));
        assertThat(client.getInputStream().read()).as("a clean end of stream, not a truncation").isEqualTo(-1);
        assertThat(handler.closed.get()).isEqualTo(1);
    }

    @Test
    void thePeersCloseNotifyReachesTheHandlerAsAHangup() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(client, "half")).isEqualTo("half");
        client.shutdownOutput();
        assertThat(client.getInputStream().read()).as("the handler closed on the hang-up, with close_notify").isEqualTo(-1);
        ServerFixture.await(() -> handler.closed.get() == 1, "closed");
        assertThat(handler.hangups.get()).isEqualTo(1);
        assertThat(handler.errors).isEmpty();
    }

    @Test
    void aKeyUpdateOfTls13IsAnswered() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(client, "one")).isEqualTo("one");
        // On an established TLS 1.3 connection the JDK client sends a KeyUpdate.
        client.startHandshake();
        assertThat(TlsFixture.echo(client, "two")).isEqualTo("two");
        client.startHandshake();
        assertThat(TlsFixture.echo(client, "three")).isEqualTo("three");
        assertThat(this.fixture.handshakes).containsExactly("ok");
        assertThat(handler.opened).as("a key update opens nothing again").hasValue(1);
        assertThat(handler.sessions).hasSize(1);
    }

    @Test
    void theServerNameChoosesTheContextAndOtherNamesGetTheDefault() throws Exception {
        Tls tls = this.fixture.serverTls().withServerNameTls("Alpha.Test", this.fixture.certificates.server("alpha"));
        SocketServer server = this.fixture.start(tls, new TlsFixture.Recording());
        assertThat(served(server, "alpha.test")).isEqualTo(new X500Principal("CN=alpha.test"));
        assertThat(served(server, "other.test")).as("an unknown name").isEqualTo(new X500Principal("CN=localhost"));
        assertThat(served(server, null)).as("no name").isEqualTo(new X500Principal("CN=localhost"));
    }

    @Test
    void aServerNamesOwnTlsServesItsProtocolsAndOtherNamesKeepTheListeners() throws Exception {
        Tls alpha = this.fixture.certificates.server("alpha");
        Tls tls = this.fixture.serverTls().withProtocols("TLSv1.3")
                .withServerNameTls("alpha.test", alpha.withProtocols("TLSv1.2"))
                .withServerNameTls("beta.test", alpha);
        SocketServer server = this.fixture.start(tls, new TlsFixture.Recording());
        assertThat(session(server, "alpha.test", "TLSv1.2").getProtocol()).isEqualTo("TLSv1.2");
        assertThatExceptionOfType(IOException.class).as("TLS 1.3 for a name served by TLS 1.2 only")
                .isThrownBy(() -> session(server, "alpha.test", "TLSv1.3"));
        assertThat(session(server, "beta.test", "TLSv1.3").getPeerPrincipal()).as("a name with no protocols of its own")
                .isEqualTo(new X500Principal("CN=alpha.test"));
        assertThatExceptionOfType(IOException.class).as("the listener's protocols for a name that names none")
                .isThrownBy(() -> session(server, "beta.test", "TLSv1.2"));
        assertThatExceptionOfType(IOException.class).as("the listener's protocols for other names")
                .isThrownBy(() -> session(server, "other.test", "TLSv1.2"));
        assertThat(session(server, "other.test", "TLSv1.3").getPeerPrincipal()).isEqualTo(new X500Principal("CN=localhost"));
    }

    private SSLSession session(SocketServer server, String name, String protocol) throws Exception {
        SSLSocket client = this.fixture.client(server, null, protocol);
        SSLParameters parameters = client.getSSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(name)));
        client.setSSLParameters(parameters);
        assertThat(TlsFixture.echo(client, "sni")).isEqualTo("sni");
        return client.getSession();
    }

    private X500Principal served(SocketServer server, String name) throws Exception {
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        if (name != null) {
            SSLParameters parameters = client.getSSLParameters();
            parameters.setServerNames(List.of(new SNIHostName(name)));
            client.setSSLParameters(parameters);
        }
        assertThat(TlsFixture.echo(client, "sni")).isEqualTo("sni");
        return (X500Principal) client.getSession().getPeerPrincipal();
    }

    @Test
    void underNeedAClientWithoutACertificateFailsTheHandshakeAndTheHandlerHearsNothing() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withClientAuth(Tls.ClientAuth.NEED), handler);
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLSocket client = this.fixture.client(server, null, protocol);
            // TLS 1.2 fails in the handshake; TLS 1.3's client learns it at its first read.
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> TlsFixture.echo(client, "no certificate"));
        }
        ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "both handshakes reported");
        assertThat(this.fixture.handshakes).containsExactly("certificate", "certificate");
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 0, "both connections closed");
        assertThat(handler.calls()).as("no onOpen, onError or onClose").isZero();
    }

    @Test
    void underNeedAClientWithACertificateOfTheTrustedCaIsServedAndItsPrincipalIsVisible() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withClientAuth(Tls.ClientAuth.NEED), handler);
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLSocket client = this.fixture.client(server, "client", protocol);
            assertThat(TlsFixture.echo(client, "mutual")).isEqualTo("mutual");
        }
        assertThat(handler.sessions).hasSize(2).allSatisfy((session) -> assertThat(session.getPeerPrincipal())
                .isEqualTo(new X500Principal("CN=sockstate test client")));
        assertThat(this.fixture.handshakes).containsExactly("ok", "ok");
    }

    @Test
    void aListenerThatNamesItsCipherSuitesOffersThoseOnly() throws Exception {
        String[] cbcOnly = {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"};
        SocketServer named = this.fixture.start(this.fixture.serverTls().withCipherSuites("TLS_AES_128_GCM_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"), new TlsFixture.Recording());
        SSLSocket cbc = this.fixture.client(named, null, "TLSv1.2");
        cbc.setEnabledCipherSuites(cbcOnly);
        assertThatExceptionOfType(IOException.class).as("a client offering CBC suites only").isThrownBy(cbc::startHandshake);
        SSLSocket gcm = this.fixture.client(named, null, "TLSv1.2");
        assertThat(TlsFixture.echo(gcm, "aead")).isEqualTo("aead");
        assertThat(gcm.getSession().getCipherSuite()).isEqualTo("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
    }

    @Test
    void underWantAClientWithoutACertificateIsServed() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withClientAuth(Tls.ClientAuth.WANT), handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(client, "wanted")).isEqualTo("wanted");
        SSLSession session = handler.sessions.peek();
        assertThatExceptionOfType(SSLPeerUnverifiedException.class).as("no client certificate").isThrownBy(session::getPeerPrincipal);
    }

    @Test
    void protocolsOrCipherSuitesNoEngineAcceptsFailTheServersStartNamingTheListener() throws Exception {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> this.fixture.start(this.fixture.serverTls().withProtocols("TLSv9.9"), new TlsFixture.Recording()))
                .satisfies((ex) -> assertThat(ex.ownerName()).isEqualTo("tls"))
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.TLS))
                .withMessageContaining("TLSv9.9").withMessageContaining("TLSv1.3");
        assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> this.fixture.start(
                this.fixture.serverTls().withCipherSuites("TLS_NO_SUCH_SUITE"), new TlsFixture.Recording()))
                .withMessageContaining("TLS_NO_SUCH_SUITE");
    }

    @Test
    void aContextThatCannotBeMadeFailsEachHandshakeAsConfiguration() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        Tls broken = Tls.server(() -> {
            throw new IllegalStateException("the key store went missing");
        });
        SocketServer server = this.fixture.start(broken, handler);
        SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> TlsFixture.echo(client, "never"));
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("configuration");
        assertThat(server.listener("tls").handlerErrors()).as("logged and counted as the stage's failure").isEqualTo(1);
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 0, "the connection closed");
        assertThat(handler.calls()).isZero();
    }

    @Test
    void framingAndAHandlerExecutorWorkAboveTls() throws Exception {
        ExecutorService handlers = Executors.newFixedThreadPool(2);
        try {
            SocketServer server = this.fixture.start(this.fixture.serverTls(), new TlsFixture.Recording(),
                    (listener) -> listener.framing(Framing.line()).handlerExecutor(handlers));
            SSLSocket client = this.fixture.client(server, null, "TLSv1.3");
            assertThat(TlsFixture.echo(client, "one\ntwo\n")).isEqualTo("one\ntwo\n");
            this.fixture.close();
        }
        finally {
            handlers.shutdownNow();
        }
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import dev.sockstate.server.tls.TlsManagers;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenSSL's engine (BoringSSL through netty-tcnative) on a real listener: what differs from the JDK's
 * and what the TLS suites, run again on it ({@code -Dsockstate.test.tls.provider=openssl}), cannot
 * see: each connection's native engine freed as it ends, a listener's and a client's (Netty's count of
 * its references down to none, which frees its memory), sessions resumed, and the settings' refusals.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeTlsTest {

    private final TlsFixture fixture;

    NativeTlsTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void everyConnectionsNativeEngineIsFreedWhenItEndsHoweverItEnds() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.certificates.server("server", Tls.Provider.OPENSSL).withHandshakeTimeout(Duration.ofMillis(300)), handler);
        List<Socket> open = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            SSLSocket client = this.fixture.client(server, null, (i % 2 == 0) ? "TLSv1.3" : "TLSv1.2");
            assertThat(TlsFixture.echo(client, "connection " + i)).isEqualTo("connection " + i);
            open.add(client);
        }
        // Half a ClientHello, left to time out; another, then a reset; plaintext, refused.
        Socket stalled = this.fixture.plain(server);
        stalled.getOutputStream().write(new byte[] {22, 3, 1, 0, 100, 1, 0});
        Socket reset = this.fixture.plain(server);
        reset.getOutputStream().write(new byte[] {22, 3, 1, 0, 100, 1, 0});
        ServerFixture.await(() -> this.fixture.counts.nativeTlsEngines() == 22, "an engine per connection that began a handshake");
        reset.setSoLinger(true, 0);
        reset.close();
        Socket plaintext = this.fixture.plain(server);
        plaintext.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> this.fixture.handshakes.containsAll(List.of("timeout", "plaintext", "closed")),
                "the timeout, the plaintext refused and the reset reported");
        // Each is reported as its connection closes, and its engine released just after.
        ServerFixture.await(() -> this.fixture.counts.nativeTlsEngines() <= 20, "the ended connections' engines freed");
        assertThat(this.fixture.counts.nativeTlsEngines()).as("the open connections' engines").isEqualTo(20);
        for (Socket socket : open) {
            socket.close();
        }
        ServerFixture.await(() -> this.fixture.counts.nativeTlsEngines() == 0, "every engine freed");
        plaintext.close();
        stalled.close();
    }

    @Test
    void aNativeClientsEnginesAreFreedWhenItsConnectionsEnd() throws Exception {
        int port = this.fixture.start(this.fixture.certificates.server("server", Tls.Provider.JDK), new ClientTest.LineEcho(),
                (listener) -> listener.framing(Framing.line())).listener("tls").portNumber();
        AtomicReference<ServerObserver.ActiveCounts> counts = new AtomicReference<>();
        ServerObserver observer = new ServerObserver() {
            @Override
            public ListenerObserver client(String client, ServerObserver.ActiveCounts active) {
                counts.set(active);
                return ListenerObserver.NONE;
            }
        };
        TlsManagers managers = this.fixture.certificates.managers(null);
        ClientSettings settings = ClientSettings.builder("native").address("localhost", port).poolSize(3).framing(Framing.line())
                .tls(Tls.client(this.fixture.certificates.context(null)).withProvider(Tls.Provider.OPENSSL, () -> managers)).build();
        SocketServer clients = this.fixture.servers.startWithClients(List.of(settings), observer);
        SocketClient client = clients.client("native");
        ServerFixture.await(() -> client.connections().size() == 3, "the client's three connections");
        assertThat(client.request("over openssl", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("echo over openssl");
        assertThat(counts.get().nativeTlsEngines()).as("an engine a connection").isEqualTo(3);
        clients.stop(Duration.ofSeconds(10));
        ServerFixture.await(() -> counts.get().nativeTlsEngines() == 0, "every engine of the client freed");
    }

    @Test
    void reloadedManagersServeTheNextConnectionsWithTheirContextMadeOffTheWorkers() throws Exception {
        TlsManagers localhost = this.fixture.certificates.managers("server");
        TlsManagers alpha = this.fixture.certificates.managers("alpha");
        java.util.concurrent.atomic.AtomicReference<TlsManagers> current = new java.util.concurrent.atomic.AtomicReference<>(localhost);
        java.util.Queue<Runnable> held = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.ExecutorService tasks = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            // The handshakes' tasks run; the making of a context (a task of OpenSslEngines') is held until let go.
            Tls tls = Tls.server(this.fixture.certificates.context("server")).withProvider(Tls.Provider.OPENSSL, current::get)
                    .withTaskExecutor((task) -> {
                        if (task.getClass().getName().contains("OpenSslEngines")) {
                            held.add(task);
                        }
                        else {
                            tasks.execute(task);
                        }
                    });
            SocketServer server = this.fixture.start(tls, new TlsFixture.Recording());
            SSLSocket before = this.fixture.client(server, null, "TLSv1.3");
            assertThat(TlsFixture.echo(before, "before")).isEqualTo("before");
            assertThat(principal(before)).isEqualTo("CN=localhost");
            current.set(alpha);
            for (int i = 0; i < 3; i++) {
                try (SSLSocket client = this.fixture.client(server, null, "TLSv1.3")) {
                    assertThat(TlsFixture.echo(client, "meanwhile")).isEqualTo("meanwhile");
                    assertThat(principal(client)).as("served by the last context while the new one is made").isEqualTo("CN=localhost");
                }
            }
            assertThat(held).as("the new context's making, asked once, on the task executor").hasSize(1);
            held.poll().run();
            try (SSLSocket client = this.fixture.client(server, null, "TLSv1.3")) {
                assertThat(TlsFixture.echo(client, "after")).isEqualTo("after");
                assertThat(principal(client)).as("a connection after the new context was made").isEqualTo("CN=alpha.test");
            }
            assertThat(TlsFixture.echo(before, "still")).as("the connection open before goes on").isEqualTo("still");
        }
        finally {
            tasks.shutdownNow();
        }
    }

    private static String principal(SSLSocket client) throws Exception {
        return ((java.security.cert.X509Certificate) client.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    @Test
    void opensslResumesItsSessionOverTls13AndTls12(@TempDir Path directory) throws Exception {
        String openssl = TlsOpensslTest.openssl();
        SocketServer server = this.fixture.start(this.fixture.certificates.server("server", Tls.Provider.OPENSSL), new TlsFixture.Recording());
        int port = server.listener("tls").portNumber();
        for (String protocol : List.of("-tls1_3", "-tls1_2")) {
            Path session = directory.resolve("session" + protocol);
            String first = sClient(openssl, port, protocol, "-sess_out", session.toString());
            assertThat(first).contains("New, TLSv1.");
            for (int i = 0; i < 2; i++) {
                String again = sClient(openssl, port, protocol, "-sess_in", session.toString());
                assertThat(again).as("s_client offering the session it saved; output:%n%s", again).contains("Reused, TLSv1.");
            }
        }
        assertThat(this.fixture.handshakes).hasSize(6).containsOnly("ok");
    }

    /** @return what s_client printed, connecting with these options, echoing a line and leaving once it came back */
    private String sClient(String openssl, int port, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-CAfile",
                this.fixture.certificates.caPem().toString()));
        command.addAll(List.of(options));
        Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try {
                client.getInputStream().transferTo(output);
            }
            catch (java.io.IOException ex) {
                // The process ended.
            }
        });
        reader.start();
        try (OutputStream in = client.getOutputStream()) {
            in.write("ping\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
            // The echo comes after the server's tickets (TLS 1.3 sends them after the handshake): s_client has read them.
            ServerFixture.await(() -> output.toString(StandardCharsets.UTF_8).contains("\nping"), "the echo came back");
        }
        assertThat(client.waitFor(10, TimeUnit.SECONDS)).as("s_client ended").isTrue();
        reader.join(5000);
        return output.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aJdkClientResumesItsSession() throws Exception {
        SocketServer server = this.fixture.start(this.fixture.certificates.server("server", Tls.Provider.OPENSSL), new TlsFixture.Recording());
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            // One client context: the JDK keeps the session (its ticket) for the host and port, and offers it again.
            javax.net.ssl.SSLContext context = this.fixture.certificates.context(null);
            long created = 0;
            for (int i = 0; i < 3; i++) {
                try (SSLSocket client = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1",
                        server.listener("tls").portNumber())) {
                    client.setEnabledProtocols(new String[] {protocol});
                    client.setSoTimeout(10_000);
                    assertThat(TlsFixture.echo(client, "hello")).isEqualTo("hello");
                    if (i == 0) {
                        created = client.getSession().getCreationTime();
                    }
                    else {
                        assertThat(client.getSession().getCreationTime()).as("the session resumed, %s", protocol).isEqualTo(created);
                    }
                }
            }
        }
        assertThat(this.fixture.handshakes).hasSize(6).containsOnly("ok");
    }

    @Test
    void namesTheNativeEngineDoesNotOfferFailTheStartAndItNeedsManagers() throws Exception {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> this.fixture.start(this.fixture.certificates.server("server", Tls.Provider.OPENSSL).withProtocols("TLSv9"), new TlsFixture.Recording()))
                .withMessageContaining("OpenSSL's TLS engine").withMessageContaining("TLSv9");
        assertThatIllegalArgumentException().isThrownBy(() -> Tls.server(this.fixture.certificates.context("server"))
                .withProvider(Tls.Provider.OPENSSL, null)).withMessageContaining("key and trust managers");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> this.fixture.start(Tls.server(this.fixture.certificates.context("server"))
                        .withProvider(Tls.Provider.OPENSSL, () -> new TlsManagers(null, null)), new TlsFixture.Recording()))
                .withMessageContaining("key and trust managers that OpenSSL's TLS engine is made of")
                .withMessageContaining("needs key managers");
        javax.net.ssl.SSLContext alpha = this.fixture.certificates.context("alpha");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> this.fixture.start(this.fixture.certificates.server("server", Tls.Provider.OPENSSL).withServerNames(java.util.Map.of("alpha.test", () -> alpha)),
                        new TlsFixture.Recording()))
                .withMessageContaining("key and trust managers for the server name 'alpha.test'");
    }

    @Test
    void whereNettyIsMissingOpenSslFailsTheStartNamingWhyAndAutomaticServesOnTheJdksEngineSayingSoOnce() throws Exception {
        String refused = runWithoutNetty("OPENSSL");
        assertThat(refused).contains("refused: Listener 'tls': tls is TLS (client auth NONE, engine OPENSSL")
                .contains("an engine that loads here: OpenSSL's does not")
                .contains("io.netty:netty-handler and io.netty:netty-tcnative-boringssl-static are not on the class path");
        String automatic = runWithoutNetty("AUTO");
        assertThat(automatic).contains("served: hello, native engines 0");
        assertThat(automatic.split("OpenSSL's TLS engine does not load here", -1)).as("the INFO lines; output:%n%s", automatic).hasSize(2);
    }

    /** @return what {@link NativeTlsAbsentMain} printed (both streams) with that provider, in a JVM without Netty */
    private static String runWithoutNetty(String provider) throws Exception {
        String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter((entry) -> !entry.contains("netty")).collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", classPath, NativeTlsAbsentMain.class.getName(), provider)
                .redirectErrorStream(true).start();
        child.getOutputStream().close();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the JVM without Netty ended").isTrue();
        assertThat(child.exitValue()).as("its exit; output:%n%s", output).isZero();
        return output;
    }
}

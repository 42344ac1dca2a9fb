package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * STARTTLS on the real backend: a connection of a listener whose TLS starts on request speaks
 * plaintext until its handler starts TLS; the answer written before goes out plain, the handshake
 * follows, and the bytes that came after the command are the handshake's, never the handler's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartTlsTest {

    private static final String READY = "220 go ahead\n";

    private final TlsFixture fixture;

    StartTlsTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    private SocketServer start(ConnectionHandler handler) throws Exception {
        return start(handler, UnaryOperator.identity());
    }

    private SocketServer start(ConnectionHandler handler, UnaryOperator<Tls> tls) throws Exception {
        return this.fixture.start(tls.apply(this.fixture.serverTls().withStartTls(true)), handler,
                (listener) -> listener.framing(Framing.line()));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "framed", "unframed", "framed on a handler executor" })
    void aHandlerStartsTlsAfterItsAnswerAndTheClientGoesOnOverTls(String route) throws Exception {
        boolean framed = route.startsWith("framed");
        Upgrading handler = new Upgrading(framed);
        SocketServer server = this.fixture.start(this.fixture.serverTls().withStartTls(true), handler, (listener) -> {
            ListenerSettings.Builder routed = framed ? listener.framing(Framing.line()) : listener;
            return route.endsWith("executor") ? routed.handlerExecutor(this.executor) : routed;
        });
        Socket plain = this.fixture.plain(server);
        assertThat(ask(plain, "HELLO\n", "plain HELLO\n")).isEqualTo("plain HELLO\n");
        // The command in two reads.
        plain.getOutputStream().write("START".getBytes(StandardCharsets.US_ASCII));
        plain.getOutputStream().flush();
        Thread.sleep(50);
        assertThat(ask(plain, "TLS\n", READY)).isEqualTo(READY);
        SSLSocket secure = overTls(plain, server);
        secure.startHandshake();
        assertThat(secure.getSession().getProtocol()).isEqualTo("TLSv1.3");
        assertThat(ask(secure, "HELLO\n", "TLSv1.3 HELLO\n")).isEqualTo("TLSv1.3 HELLO\n");
        assertThat(handler.lines).containsExactly("HELLO", "STARTTLS", "HELLO");
        assertThat(this.fixture.handshakes).as("the handshake counted once it began").containsExactly("ok");
        assertThat(this.fixture.plaintext.get()).as("no plaintext connection beside TLS counted").isZero();
    }

    @Test
    void commandsBeforeTheUpgradeInOneWriteAreAnsweredInPlaintextInOrder() throws Exception {
        Upgrading handler = new Upgrading();
        SocketServer server = start(handler);
        Socket plain = this.fixture.plain(server);
        String asked = "ONE\nTWO\nSTARTTLS\n";
        plain.getOutputStream().write(asked.getBytes(StandardCharsets.US_ASCII));
        String answers = "plain ONE\nplain TWO\n" + READY;
        assertThat(new String(TlsFixture.readFully(plain.getInputStream(), answers.length()), StandardCharsets.US_ASCII))
                .isEqualTo(answers);
        SSLSocket secure = overTls(plain, server);
        assertThat(ask(secure, "THREE\n", "TLSv1.3 THREE\n")).isEqualTo("TLSv1.3 THREE\n");
    }

    @Test
    void behindABalancersProxyHeaderTlsStartsOnRequestAndTheConnectionKeepsTheClientTheHeaderNamed() throws Exception {
        Upgrading handler = new Upgrading();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withStartTls(true), handler,
                (listener) -> listener.framing(Framing.line())
                        .proxyProtocol(ProxyProtocol.accept(ProxyProtocol.Version.ANY).withTrustedProxies(List.of("127.0.0.0/8"))));
        Socket balancer = this.fixture.plain(server);
        // The header and the client's first command in one write, as a balancer forwards them.
        assertThat(ask(balancer, "PROXY TCP4 192.0.2.7 198.51.100.1 51000 25\r\nHELLO\n", "plain HELLO\n")).isEqualTo("plain HELLO\n");
        assertThat(ask(balancer, "STARTTLS\n", READY)).isEqualTo(READY);
        SSLSocket secure = overTls(balancer, server);
        assertThat(ask(secure, "HELLO\n", "TLSv1.3 HELLO\n")).isEqualTo("TLSv1.3 HELLO\n");
        assertThat(handler.lines).containsExactly("HELLO", "STARTTLS", "HELLO");
        assertThat(handler.last.remoteAddress()).as("the client the header named, over TLS as before it")
                .isEqualTo(new InetSocketAddress("192.0.2.7", 51000));
        assertThat(handler.last.proxyHeader().destination()).isEqualTo(new InetSocketAddress("198.51.100.1", 25));
        assertThat(this.fixture.handshakes).containsExactly("ok");
    }

    @Test
    void aClientHelloSentWithTheCommandInOneWriteIsTheHandshakesFirstBytes() throws Exception {
        Upgrading handler = new Upgrading();
        SocketServer server = start(handler);
        Socket plain = this.fixture.plain(server);
        EngineClient client = new EngineClient(this.fixture.certificates.context("client"), plain);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        sent.write("STARTTLS\n".getBytes(StandardCharsets.US_ASCII));
        sent.write(client.hello());
        plain.getOutputStream().write(sent.toByteArray());
        assertThat(new String(TlsFixture.readFully(plain.getInputStream(), READY.length()), StandardCharsets.US_ASCII))
                .isEqualTo(READY);
        client.finishHandshake();
        client.send("PIPELINED\n");
        assertThat(client.read("TLSv1.3 PIPELINED\n".length())).isEqualTo("TLSv1.3 PIPELINED\n");
        assertThat(this.fixture.handshakes).containsExactly("ok");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "as read", "through a stage that passes each read on in two pieces" })
    void plaintextPipelinedAfterTheCommandFailsTheHandshakeAndNeverReachesTheHandler(String route) throws Exception {
        Upgrading handler = new Upgrading();
        Stage halves = new Stage() {
            @Override
            public void data(StageContext context, ByteBuffer data) {
                int end = data.limit();
                data.limit(data.position() + data.remaining() / 2);
                context.passData(data);
                data.limit(end);
                context.passData(data);
            }
        };
        SocketServer server = this.fixture.start(this.fixture.serverTls().withStartTls(true), handler, (listener) -> {
            ListenerSettings.Builder framed = listener.framing(Framing.line());
            return route.equals("as read") ? framed : framed.stage(() -> halves);
        });
        Socket plain = this.fixture.plain(server);
        // A command injected behind STARTTLS (a man in the middle's) would run as if sent over TLS if it were handed on.
        plain.getOutputStream().write("STARTTLS\nMAIL FROM:<mallory@example.org>\n".getBytes(StandardCharsets.US_ASCII));
        byte[] answer = TlsFixture.readAll(plain.getInputStream());
        assertThat(new String(answer, 0, READY.length(), StandardCharsets.US_ASCII)).isEqualTo(READY);
        assertThat(answer).as("the answer, then a TLS alert").hasSizeGreaterThan(READY.length());
        assertThat(answer[READY.length()]).as("a TLS alert record").isEqualTo((byte) 21);
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection closed");
        assertThat(handler.lines).containsExactly("STARTTLS");
        assertThat(handler.errors).singleElement().satisfies((error) -> assertThat(error).hasMessageContaining("no TLS handshake"));
        assertThat(this.fixture.handshakes).containsExactly("plaintext");
    }

    @Test
    void anUnfinishedPlaintextFrameKeptWhenAnotherThreadStartsTlsIsTheHandshakesNeverJoinedWithWhatTlsPassesOn() throws Exception {
        Upgrading handler = new Upgrading() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                if (StandardCharsets.US_ASCII.decode(data.duplicate()).toString().equals("LATER")) {
                    // Answers, and leaves the start to another thread.
                    data.position(data.limit());
                    this.lines.add("LATER");
                    connection.write(READY.trim().getBytes(StandardCharsets.US_ASCII));
                    return;
                }
                super.onData(connection, data);
            }
        };
        SocketServer server = start(handler);
        Socket plain = this.fixture.plain(server);
        assertThat(ask(plain, "LATER\n", READY)).isEqualTo(READY);
        // An unfinished plaintext frame, kept by the framing, then the start from this thread.
        plain.getOutputStream().write("MAIL FROM:<m".getBytes(StandardCharsets.US_ASCII));
        plain.getOutputStream().flush();
        Thread.sleep(200);
        handler.last.startTls();
        // The kept bytes began the handshake: it fails, and no frame of them and of later bytes reaches the handler.
        SSLSocket secure = overTls(plain, server);
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
            secure.startHandshake();
            secure.getOutputStream().write("allory@example.org>\n".getBytes(StandardCharsets.US_ASCII));
            secure.getInputStream().read();
        });
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection closed");
        assertThat(handler.lines).containsExactly("LATER");
        assertThat(this.fixture.handshakes).containsExactly("plaintext");
    }

    @Test
    void theHandshakeTimeoutCountsFromTheStartOfTlsNotFromTheConnection() throws Exception {
        Upgrading handler = new Upgrading();
        SocketServer server = start(handler, (tls) -> tls.withHandshakeTimeout(Duration.ofMillis(300)));
        Socket plain = this.fixture.plain(server);
        assertThat(ask(plain, "HELLO\n", "plain HELLO\n")).isEqualTo("plain HELLO\n");
        Thread.sleep(600);
        assertThat(ask(plain, "STARTTLS\n", READY)).as("plaintext longer than the handshake timeout").isEqualTo(READY);
        assertThat(ask(overTls(plain, server), "HELLO\n", "TLSv1.3 HELLO\n")).as("a handshake right after the start")
                .isEqualTo("TLSv1.3 HELLO\n");
        // No hello after the start: the handshake is closed at its limit.
        Socket silent = this.fixture.plain(server);
        assertThat(ask(silent, "STARTTLS\n", READY)).isEqualTo(READY);
        byte[] end = TlsFixture.readAll(silent.getInputStream());
        assertThat(end.length == 0 || end[0] == 21).as("nothing but an alert before the end").isTrue();
        ServerFixture.await(() -> this.fixture.handshakes.contains("timeout"), "the timed-out handshake counted");
        assertThat(this.fixture.handshakes).containsExactly("ok", "timeout");
        assertThat(handler.errors).singleElement().satisfies((error) -> assertThat(error).hasMessageContaining("did not end within"));
    }

    @Test
    void opensslStartsTlsOnAnSmtpDialog() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "s_client reads the answer to STARTTLS with one read: an answer the faults cut in"
                + " two leaves its rest to be taken for the handshake's first record");
        String openssl = TlsOpensslTest.openssl();
        Smtp handler = new Smtp();
        SocketServer server = start(handler);
        int port = server.listener("tls").portNumber();
        Process client = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-starttls", "smtp",
                "-CAfile", this.fixture.certificates.caPem().toString(), "-verify_return_error", "-quiet")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            client.getOutputStream().write("NOOP\r\n".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            String expected = "250 NOOP over TLSv1.3\r\n";
            byte[] answer = client.getInputStream().readNBytes(expected.length());
            assertThat(new String(answer, StandardCharsets.US_ASCII)).isEqualTo(expected);
        }
        finally {
            client.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        assertThat(handler.commands).startsWith("EHLO", "STARTTLS");
        assertThat(this.fixture.handshakes).containsExactly("ok");
    }

    @Test
    void startTlsIsRefusedWhereTlsDoesNotStartOnRequestOnceStartedAndFromAnotherThread() throws Exception {
        AtomicReference<Throwable> plainRefusal = new AtomicReference<>();
        ConnectionHandler plainHandler = new EchoHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                try {
                    connection.startTls();
                }
                catch (IllegalStateException ex) {
                    plainRefusal.set(ex);
                }
                super.onData(connection, data);
            }
        };
        SocketServer plainServer = this.fixture.servers.start(1, ServerFixture.tcp("plain").handler(plainHandler).build());
        Socket plainClient = this.fixture.servers.connect(plainServer, "plain");
        plainClient.getOutputStream().write('x');
        assertThat(plainClient.getInputStream().read()).isEqualTo('x');
        assertThat(plainRefusal.get()).hasMessageContaining("has no TLS to start on request");

        Upgrading handler = new Upgrading();
        SocketServer server = start(handler);
        Socket plain = this.fixture.plain(server);
        assertThat(ask(plain, "TWICE\n", READY)).isEqualTo(READY);
        ServerFixture.await(() -> !handler.refusals.isEmpty(), "the second start refused");
        assertThat(handler.refusals).singleElement().satisfies((refusal) -> assertThat(refusal).hasMessageContaining("started already"));
        assertThat(ask(overTls(plain, server), "AFTER\n", "TLSv1.3 AFTER\n")).isEqualTo("TLSv1.3 AFTER\n");
        // Asked again from another thread, once started: the connection fails, its handler told why.
        handler.last.startTls();
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection asked twice closed");
        assertThat(handler.errors).singleElement().satisfies((error) -> assertThat(error).hasMessageContaining("started already"));
        assertThatIllegalStateException().isThrownBy(() -> Tls.server(() -> null).withStartTls(true).withPlaintextServed(true))
                .withMessageContaining("cannot both serve plaintext beside it");
        assertThatIllegalStateException().isThrownBy(() -> Tls.server(() -> null).withPlaintextServed(true).withStartTls(true))
                .withMessageContaining("cannot both serve plaintext beside it");
        assertThat(Tls.server(() -> null).withStartTls(true).withStartTls(false).startsTlsOnRequest()).isFalse();
        ConnectionHandler echo = new EchoHandler();
        assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> ServerFixture.tcp("routed")
                .tls(Tls.server(() -> null).withStartTls(true).withApplicationProtocols("h2"))
                .handler(ConnectionHandler.byApplicationProtocol(Map.of("h2", echo), echo)).build())
                .withMessageContaining("one handler where TLS starts on request");
    }

    @Test
    void aClientStartsTlsFromAnotherThreadAfterItsRequestsAnswerAndItsNextRequestGoesOverTls() throws Exception {
        Upgrading handler = new Upgrading();
        int port = start(handler).listener("tls").portNumber();
        ClientSettings settings = ClientSettings.builder("upgrading").address("localhost", port).framing(Framing.line())
                .tls(this.fixture.certificates.client(null).withStartTls(true)).build();
        SocketClient client = this.fixture.servers.startWithClients(List.of(settings), ServerObserver.NONE).client("upgrading");
        ServerFixture.await(() -> client.connections().size() == 1, "the client to connect");
        assertThat(client.request("HELLO", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("plain HELLO");
        assertThat(client.connection().tlsSession()).isNull();
        assertThat(client.request("STARTTLS", String.class).get(10, TimeUnit.SECONDS)).isEqualTo(READY.trim());
        // The application's thread: the start is handed to the connection's, after the writes before it.
        client.connection().startTls();
        assertThat(client.request("HELLO", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("TLSv1.3 HELLO");
        assertThat(client.connection().tlsSession().getProtocol()).isEqualTo("TLSv1.3");
        assertThat(handler.lines).containsExactly("HELLO", "STARTTLS", "HELLO");
    }

    @Test
    void aClientThatStartsTlsInItsReplysHandlerTakesWhatFollowsTheReplyAsTheHandshakesNeverAsAFrame() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "the answer and the injected line must reach the client in one read");
        // A server that injects a plaintext line behind its answer to STARTTLS, as a man in the middle would.
        Upgrading injecting = new Upgrading() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                if (StandardCharsets.US_ASCII.decode(data.duplicate()).toString().equals("STARTTLS")) {
                    data.position(data.limit());
                    connection.write(READY.trim().getBytes(StandardCharsets.US_ASCII));
                    connection.write("250 INJECTED".getBytes(StandardCharsets.US_ASCII));
                    connection.startTls();
                    return;
                }
                super.onData(connection, data);
            }
        };
        int port = start(injecting).listener("tls").portNumber();
        Queue<String> unsolicited = new ConcurrentLinkedQueue<>();
        ConnectionHandler hearing = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                unsolicited.add(text(data));
            }
        };
        ClientSettings settings = ClientSettings.builder("upgrading").address("localhost", port).framing(Framing.line()).handler(hearing)
                .tls(this.fixture.certificates.client(null).withStartTls(true)).build();
        SocketClient client = this.fixture.servers.startWithClients(List.of(settings), ServerObserver.NONE).client("upgrading");
        ServerFixture.await(() -> client.connections().size() == 1, "the client to connect");
        Connection first = client.connection();
        java.util.concurrent.CompletableFuture<String> answered = new java.util.concurrent.CompletableFuture<>();
        client.request("STARTTLS", (reply, failure) -> {
            // The reply's handler runs on the connection's thread as the reply arrives: the start is at once.
            answered.complete((reply != null) ? text(reply) : String.valueOf(failure));
            client.connection().startTls();
        });
        assertThat(answered.get(10, TimeUnit.SECONDS)).isEqualTo(READY.trim());
        ServerFixture.await(() -> !first.isOpen(), "the connection whose handshake met plaintext closed");
        assertThat(unsolicited).as("frames handed to the client's handler").isEmpty();
        assertThat(first.tlsSession()).isNull();
    }

    private SSLSocket overTls(Socket plain, SocketServer server) throws Exception {
        SSLContext context = this.fixture.certificates.context("client");
        SSLSocket secure = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost",
                server.listener("tls").portNumber(), true);
        secure.setSoTimeout(10_000);
        return secure;
    }

    /** @return what came back for the text, as long as the answer expected */
    private static String ask(Socket socket, String text, String expected) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return new String(TlsFixture.readFully(socket.getInputStream(), expected.length()), StandardCharsets.US_ASCII);
    }

    private static String text(ByteBuffer data) {
        return StandardCharsets.US_ASCII.decode(data).toString();
    }

    /**
     * Answers each line with the connection's TLS protocol ("plain" before) and the line; answers
     * STARTTLS with {@link #READY}, then starts TLS; TWICE starts it twice.
     */
    static class Upgrading extends EchoHandler {

        /** Whether the route frames lines: without, the handler takes a read's line and ends its answers itself. */
        private final boolean framed;

        private final StringBuilder unframed = new StringBuilder();

        final Queue<String> lines = new ConcurrentLinkedQueue<>();

        Upgrading() {
            this(true);
        }

        Upgrading(boolean framed) {
            this.framed = framed;
        }

        final Queue<Throwable> refusals = new ConcurrentLinkedQueue<>();

        volatile Connection last;

        @Override
        public void onOpen(Connection connection) throws Exception {
            this.last = connection;
            super.onOpen(connection);
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            String line;
            if (this.framed) {
                line = text(data);
            }
            else {
                // One line at most: what follows its end is left in the buffer (the handshake's, after STARTTLS).
                while (data.hasRemaining()) {
                    char next = (char) data.get();
                    if (next == '\n') {
                        break;
                    }
                    this.unframed.append(next);
                }
                if (data.position() == 0 || data.get(data.position() - 1) != '\n') {
                    return;
                }
                line = this.unframed.toString();
                this.unframed.setLength(0);
            }
            this.lines.add(line);
            if (line.equals("STARTTLS") || line.equals("TWICE")) {
                answer(connection, READY.substring(0, READY.length() - 1));
                connection.startTls();
                if (line.equals("TWICE")) {
                    try {
                        connection.startTls();
                    }
                    catch (IllegalStateException ex) {
                        this.refusals.add(ex);
                    }
                }
                return;
            }
            String protocol = (connection.tlsSession() != null) ? connection.tlsSession().getProtocol() : "plain";
            answer(connection, protocol + " " + line);
        }

        private void answer(Connection connection, String text) {
            connection.write((this.framed ? text : text + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** As much of an SMTP server as {@code openssl s_client -starttls smtp} needs. */
    static final class Smtp extends EchoHandler {

        final Queue<String> commands = new ConcurrentLinkedQueue<>();

        @Override
        public void onOpen(Connection connection) throws Exception {
            super.onOpen(connection);
            connection.write("220 sockstate ESMTP\r".getBytes(StandardCharsets.US_ASCII));
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            String line = text(data);
            String command = line.split(" ", 2)[0];
            this.commands.add(command);
            switch (command) {
                case "EHLO" -> {
                    connection.write("250-sockstate\r".getBytes(StandardCharsets.US_ASCII));
                    connection.write("250 STARTTLS\r".getBytes(StandardCharsets.US_ASCII));
                }
                case "STARTTLS" -> {
                    connection.write("220 2.0.0 Ready to start TLS\r".getBytes(StandardCharsets.US_ASCII));
                    connection.startTls();
                }
                default -> connection.write(("250 " + line + " over " + ((connection.tlsSession() != null)
                        ? connection.tlsSession().getProtocol() : "plaintext") + "\r").getBytes(StandardCharsets.US_ASCII));
            }
        }
    }

    /** A TLS client driven by hand over a plain socket, so that its hello can share a write with plaintext. */
    static final class EngineClient {

        private final SSLEngine engine;

        private final InputStream in;

        private final OutputStream out;

        private final ByteBuffer netIn;

        private final ByteBuffer appIn;

        private final ByteBuffer netOut;

        EngineClient(SSLContext context, Socket socket) throws IOException {
            this.engine = context.createSSLEngine("localhost", socket.getPort());
            this.engine.setUseClientMode(true);
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
            int packet = this.engine.getSession().getPacketBufferSize();
            this.netIn = ByteBuffer.allocate(4 * packet);
            this.appIn = ByteBuffer.allocate(4 * this.engine.getSession().getApplicationBufferSize());
            this.netOut = ByteBuffer.allocate(4 * packet);
        }

        /** @return the ClientHello's records */
        byte[] hello() throws IOException {
            this.engine.beginHandshake();
            return wrap(ByteBuffer.allocate(0));
        }

        void finishHandshake() throws IOException {
            while (true) {
                switch (this.engine.getHandshakeStatus()) {
                    case NEED_WRAP -> this.out.write(wrap(ByteBuffer.allocate(0)));
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapMore();
                    case NEED_TASK -> {
                        Runnable task;
                        while ((task = this.engine.getDelegatedTask()) != null) {
                            task.run();
                        }
                    }
                    default -> {
                        return;
                    }
                }
            }
        }

        void send(String text) throws IOException {
            this.out.write(wrap(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII))));
        }

        String read(int length) throws IOException {
            while (this.appIn.position() < length) {
                unwrapMore();
            }
            this.appIn.flip();
            byte[] read = new byte[length];
            this.appIn.get(read);
            this.appIn.compact();
            return new String(read, StandardCharsets.US_ASCII);
        }

        private byte[] wrap(ByteBuffer content) throws IOException {
            this.netOut.clear();
            SSLEngineResult result = this.engine.wrap(content, this.netOut);
            if (result.getStatus() != SSLEngineResult.Status.OK) {
                throw new IOException("wrap: " + result);
            }
            this.netOut.flip();
            byte[] records = new byte[this.netOut.remaining()];
            this.netOut.get(records);
            return records;
        }

        /** Unwraps what arrived, reading more from the socket when no whole record is there. */
        private void unwrapMore() throws IOException {
            this.netIn.flip();
            SSLEngineResult result = this.engine.unwrap(this.netIn, this.appIn);
            this.netIn.compact();
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW
                    || result.getStatus() == SSLEngineResult.Status.OK && result.bytesConsumed() == 0 && result.bytesProduced() == 0
                            && result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
                int read = this.in.read(this.netIn.array(), this.netIn.position(), this.netIn.remaining());
                if (read < 0) {
                    throw new IOException("The server closed the connection");
                }
                this.netIn.position(this.netIn.position() + read);
            }
            else if (result.getStatus() != SSLEngineResult.Status.OK) {
                throw new IOException("unwrap: " + result);
            }
        }
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.proxy.ProxyHeaders;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.proxy.ProxyHeaderException;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.proxy.ProxyProtocol.Version;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener behind a load balancer, on the real backend: the header's client becomes the connection's
 * peer before the handler hears of it, the bytes after the header reach the handler, TLS follows the
 * header, and each kind of bad header closes its connection, counted by reason, with nothing left behind.
 * The balancer is the test itself, writing headers as HAProxy does (the sample's tests put real HAProxy
 * and nginx in front).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProxyProtocolServingTest {

    /** The ranges that believe every peer's header. */
    private static final List<String> EVERY_PEER = List.of("0.0.0.0/0", "::/0");

    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.7", 51000);

    private static final InetSocketAddress DESTINATION = new InetSocketAddress("198.51.100.1", 7000);

    private final ServerFixture servers = new ServerFixture();

    @TempDir
    Path directory;

    private final Queue<String> outcomes = new ConcurrentLinkedQueue<>();

    private final Recording handler = new Recording();

    private SocketServer server;

    @AfterEach
    void stop() throws IOException {
        this.servers.close();
    }

    @Test
    void theClientOfAVersion1HeaderIsThePeerTheHandlerSeesAndTheBytesAfterItAreEchoed() throws Exception {
        start(ProxyProtocol.accept(Version.ANY), UnaryOperator.identity());
        try (Socket balancer = connect()) {
            write(balancer, join(ProxyHeaders.v1(CLIENT, DESTINATION), ascii("hello")));
            assertThat(read(balancer, 5)).isEqualTo("hello");
            Connection connection = this.handler.opened.poll();
            assertThat(connection.remoteAddress()).isEqualTo(CLIENT);
            assertThat(this.handler.peersAtOpen).containsExactly(CLIENT);
            assertThat(((InetSocketAddress) connection.proxyHeader().proxyAddress()).getPort()).isEqualTo(balancer.getLocalPort());
            assertThat(connection.proxyHeader().destination()).isEqualTo(DESTINATION);
        }
        assertThat(this.outcomes).containsExactly("read");
    }

    @Test
    void aVersion2HeaderSentAByteAtATimeIsReadAndItsTlvsReachTheHandler() throws Exception {
        start(ProxyProtocol.accept(Version.V2), UnaryOperator.identity());
        byte[] header = ProxyHeaders.v2().tcp(CLIENT, DESTINATION)
                .tlv(ProxyHeader.PP2_TYPE_AUTHORITY, "db.example".getBytes(StandardCharsets.UTF_8)).crc32c().bytes();
        try (Socket balancer = connect()) {
            for (byte b : header) {
                balancer.getOutputStream().write(b);
                balancer.getOutputStream().flush();
            }
            write(balancer, ascii("ping"));
            assertThat(read(balancer, 4)).isEqualTo("ping");
            Connection connection = this.handler.opened.poll();
            assertThat(connection.remoteAddress()).isEqualTo(CLIENT);
            assertThat(connection.proxyHeader().authority()).isEqualTo("db.example");
        }
    }

    @Test
    void aPeerOutsideTheTrustedProxiesIsServedUnderItsOwnAddressAndItsHeaderIsRefused() throws Exception {
        start(ProxyProtocol.accept(Version.ANY).withTrustedProxies(List.of("10.0.0.0/8", "::2/128")), UnaryOperator.identity());
        try (Socket direct = connect()) {
            write(direct, ascii("PRO"));
            write(direct, ascii("ud of it"));
            assertThat(read(direct, 11)).as("a start that merely looks like a header is passed on once it differs").isEqualTo("PROud of it");
            assertThat(this.handler.peersAtOpen.poll()).isEqualTo(direct.getLocalSocketAddress());
            assertThat(this.handler.opened.poll().proxyHeader()).isNull();
        }
        try (Socket spoofer = connect()) {
            write(spoofer, ProxyHeaders.v1(CLIENT, DESTINATION));
            assertClosedByServer(spoofer);
            ServerFixture.await(() -> !this.handler.errors.isEmpty(), "the handler told of the refusal");
            assertThat(this.handler.errors.poll()).isInstanceOf(ProxyHeaderException.class)
                    .hasMessageContaining("none of the listener's trusted proxies [10.0.0.0/8, ::2/128]")
                    .satisfies((error) -> assertThat(((ProxyHeaderException) error).reason()).isEqualTo("untrusted"));
        }
        assertThat(this.outcomes).containsExactly("untrusted");
    }

    @Test
    void behindABalancerOnAUnixDomainSocketThePeerIsTrustedByTheFilesPermissionsAndTheClientIsThePeer() throws Exception {
        Path path = this.directory.resolve("proxied.sock");
        ListenerSettings listener = ListenerSettings.tcp("proxied").unixPath(path).unixPermissions("rw-------")
                .proxyProtocol(ProxyProtocol.accept(Version.V2)).handler(this.handler).build();
        this.server = this.servers.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), ServerObserver.NONE, listener);
        try (SocketChannel balancer = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            balancer.write(ByteBuffer.wrap(join(ProxyHeaders.v2().tcp(CLIENT, DESTINATION).bytes(), ascii("unix"))));
            ByteBuffer echoed = ByteBuffer.allocate(4);
            while (echoed.hasRemaining() && balancer.read(echoed) >= 0) {
                // until the echo is whole
            }
            assertThat(new String(echoed.array(), StandardCharsets.US_ASCII)).isEqualTo("unix");
            Connection connection = this.handler.opened.poll();
            assertThat(connection.remoteAddress()).isEqualTo(CLIENT);
            assertThat(connection.proxyHeader().proxyAddress()).isInstanceOf(UnixDomainSocketAddress.class);
        }
    }

    @Test
    void aDirectClientsStartThatCouldBeginAHeaderReachesTheHandlerOnceTheHeadersTimeIsUp() throws Exception {
        start(ProxyProtocol.accept(Version.ANY).withTrustedProxies(List.of("10.0.0.0/8")).withHeaderTimeout(Duration.ofMillis(300)),
                UnaryOperator.identity());
        try (Socket direct = connect()) {
            write(direct, ascii("PRO"));
            assertThat(read(direct, 3)).isEqualTo("PRO");
        }
        assertThat(this.outcomes).as("nothing refused").isEmpty();
    }

    @Test
    void onAnIpListenerARelayedUnixClientLeavesTheBalancerAsThePeer() throws Exception {
        start(ProxyProtocol.accept(Version.V2), UnaryOperator.identity());
        byte[] paths = new byte[216];
        System.arraycopy("/run/client.sock".getBytes(StandardCharsets.US_ASCII), 0, paths, 0, 16);
        try (Socket balancer = connect()) {
            write(balancer, join(ProxyHeaders.v2().familyTransport(0x31).addressBytes(paths).bytes(), ascii("hi")));
            assertThat(read(balancer, 2)).isEqualTo("hi");
            Connection connection = this.handler.opened.poll();
            assertThat(connection.remoteAddress()).isEqualTo(balancer.getLocalSocketAddress());
            assertThat(connection.proxyHeader().source()).isEqualTo(UnixDomainSocketAddress.of("/run/client.sock"));
        }
    }

    @Test
    @BlocksWorkers("holds the worker in a handler while a connection is reset before its accept")
    void aConnectionResetBeforeItsAcceptIsClosedQuietlyAndCounted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(1);
        ListenerSettings gate = ServerFixture.tcp("gate").handler((ConnectionHandler) (connection, data) -> {
            holding.countDown();
            release.await(10, TimeUnit.SECONDS);
        }).build();
        ServerObserver observer = recordingObserver();
        ListenerSettings proxied = ServerFixture.tcp("proxied").proxyProtocol(ProxyProtocol.accept(Version.ANY)
                .withTrustedProxies(EVERY_PEER)).handler(this.handler).build();
        this.server = this.servers.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), observer, gate, proxied);
        try (Socket held = this.servers.connect(this.server, "gate")) {
            write(held, ascii("x"));
            assertThat(holding.await(10, TimeUnit.SECONDS)).as("the only worker held in a handler").isTrue();
            Socket reset = connect();
            reset.setSoLinger(true, 0);
            reset.close();
            release.countDown();
            ServerFixture.await(() -> this.outcomes.contains("closed"), "the reset connection counted as closed");
        }
        assertThat(this.server.listener("proxied").handlerErrors()).as("no stage failed").isZero();
        assertThat(this.handler.opened).isEmpty();
    }

    @Test
    void tlsFollowsTheHeaderAndTheHandlerSeesBothTheClientAndTheSession() throws Exception {
        TlsFixture tls = new TlsFixture();
        try {
            start(ProxyProtocol.accept(Version.ANY), (builder) -> builder.tls(uncheck(tls::serverTls)));
            Socket balancer = connect();
            write(balancer, ProxyHeaders.v2().tcp(CLIENT, DESTINATION).bytes());
            SSLSocketFactory factory = TlsCertificates.get().context("client").getSocketFactory();
            try (SSLSocket secured = (SSLSocket) factory.createSocket(balancer, "localhost", balancer.getPort(), true)) {
                assertThat(TlsFixture.echo(secured, "secret")).isEqualTo("secret");
                Connection connection = this.handler.opened.poll();
                assertThat(connection.remoteAddress()).isEqualTo(CLIENT);
                assertThat(connection.tlsSession()).isNotNull();
            }
        }
        finally {
            tls.close();
        }
    }

    /**
     * Behind a PROXY protocol header, a TLS handshake's limit still counts from the connection's
     * accept, not from the header: a balancer that sends its header late leaves the handshake only
     * the rest of the limit. The header comes after 1.5 s, the handshake never: the connection closes
     * about 2 s after its accept, its limit, where counted from the header it would close at 3.5 s.
     */
    @Test
    void behindAHeaderTheHandshakesLimitCountsFromTheAccept() throws Exception {
        TlsFixture tls = new TlsFixture();
        try {
            start(ProxyProtocol.accept(Version.ANY), (builder) -> builder.tls(uncheck(tls::serverTls).withHandshakeTimeout(Duration.ofSeconds(2))));
            Socket balancer = connect();
            long accepted = System.nanoTime();
            Thread.sleep(1500);
            write(balancer, ProxyHeaders.v2().tcp(CLIENT, DESTINATION).bytes());
            balancer.setSoTimeout(10_000);
            // (What comes before the end is the TLS stage's alert.)
            balancer.getInputStream().readAllBytes();
            long closedAfterMillis = (System.nanoTime() - accepted) / 1_000_000;
            assertThat(closedAfterMillis).as("milliseconds from the accept to the close").isBetween(1500L, 3000L);
        }
        finally {
            tls.close();
        }
    }

    @Test
    void badHeadersCloseTheirConnectionsUnheardCountedByReasonAndLeaveNoDescriptor() throws Exception {
        start(ProxyProtocol.accept(Version.V1).withHeaderTimeout(Duration.ofMillis(300)), UnaryOperator.identity());
        OpenDescriptors.warmUpJdkSockets();
        goodBalancerIsServed();
        // The baseline once the server closed its side of the good connection, which it does after the client's close.
        ServerFixture.await(() -> this.server.listener("proxied").activeConnections() == 0, "the good connection closed");
        int descriptors = OpenDescriptors.count();
        refused(ascii("GET / HTTP/1.1\r\n\r\n"));
        refused(ascii("PROXY TCP4 192.0.2.7 198.51.100.1 51000 99999\r\n"));
        refused(ascii("PROXY TCP4 " + "9".repeat(200)));
        refused(ProxyHeaders.v2().tcp(CLIENT, DESTINATION).bytes());
        refused(ascii("PROXY TCP4 192.0.2.7 "));
        try (Socket leaving = connect()) {
            write(leaving, ascii("PROXY TCP4"));
            leaving.shutdownOutput();
            assertClosedByServer(leaving);
        }
        ServerFixture.await(() -> this.outcomes.size() >= 7, "every outcome counted: " + this.outcomes);
        assertThat(this.outcomes).containsExactly("read", "malformed", "malformed", "oversized", "version", "timeout", "closed");
        assertThat(this.handler.opened).as("the handler heard of the good connection only").hasSize(1);
        assertThat(this.handler.errors).isEmpty();
        goodBalancerIsServed();
        ServerFixture.await(() -> this.server.listener("proxied").activeConnections() == 0, "every connection closed");
        ServerFixture.await(() -> OpenDescriptors.count() <= descriptors, "every descriptor released (no more open than before)");
    }

    private void refused(byte[] bytes) throws Exception {
        try (Socket balancer = connect()) {
            long started = System.nanoTime();
            write(balancer, bytes);
            assertClosedByServer(balancer);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("closed by the header's refusal or its timeout")
                    .isLessThan(Duration.ofSeconds(5));
        }
    }

    private void goodBalancerIsServed() throws Exception {
        try (Socket balancer = connect()) {
            write(balancer, join(ProxyHeaders.v1(CLIENT, DESTINATION), ascii("ok")));
            assertThat(read(balancer, 2)).isEqualTo("ok");
        }
    }

    private void start(ProxyProtocol proxy, UnaryOperator<ListenerSettings.Builder> customizer) {
        // Every peer believed unless the test names its balancers.
        ProxyProtocol trusting = proxy.trustedProxies().isEmpty() ? proxy.withTrustedProxies(EVERY_PEER) : proxy;
        ListenerSettings listener = customizer.apply(ServerFixture.tcp("proxied").proxyProtocol(trusting).handler(this.handler)).build();
        this.server = this.servers.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), recordingObserver(), listener);
    }

    private ServerObserver recordingObserver() {
        return new ServerObserver() {

            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return new ListenerObserver() {

                    @Override
                    public void proxyHeader(boolean accepted, String reason) {
                        ProxyProtocolServingTest.this.outcomes.add(accepted ? "read" : reason);
                    }
                };
            }
        };
    }

    private Socket connect() throws IOException {
        return this.servers.connect(this.server, "proxied");
    }

    private static void assertClosedByServer(Socket socket) throws IOException {
        try {
            assertThat(socket.getInputStream().read()).as("the server closed the connection").isEqualTo(-1);
        }
        catch (SocketException ex) {
            // reset: closed all the same
        }
        catch (SocketTimeoutException ex) {
            throw new AssertionError("The server did not close the connection", ex);
        }
    }

    private static void write(Socket socket, byte[] bytes) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    private static String read(Socket socket, int length) throws IOException {
        InputStream in = socket.getInputStream();
        return new String(TlsFixture.readFully(in, length), StandardCharsets.US_ASCII);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] join(byte[] first, byte[] second) {
        return ByteBuffer.allocate(first.length + second.length).put(first).put(second).array();
    }

    private static <T> T uncheck(ThrowingSupplier<T> supplier) {
        try {
            return supplier.get();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private interface ThrowingSupplier<T> {

        T get() throws Exception;
    }

    /** Echoes, and records each connection and the peer it had as its handler first heard of it. */
    static final class Recording extends EchoHandler {

        final Queue<Connection> opened = new ConcurrentLinkedQueue<>();

        final Queue<SocketAddress> peersAtOpen = new ConcurrentLinkedQueue<>();

        @Override
        public void onOpen(Connection connection) throws Exception {
            this.peersAtOpen.add(connection.remoteAddress());
            this.opened.add(connection);
            super.onOpen(connection);
        }
    }
}

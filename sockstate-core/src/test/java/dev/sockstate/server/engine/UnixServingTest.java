package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.PeerCredentials;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Listeners on Unix domain sockets, on the backend the server tests run on, with real clients: the
 * JDK's channels, {@code socat} and {@code nc -U}. Stream and datagram sockets, the socket file's
 * permissions and removal, the peer's credentials.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnixServingTest {

    private final ServerFixture fixture = new ServerFixture();

    @TempDir
    Path directory;

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void aStreamListenerEchoesToTheJdksChannelAndTellsTheAddressesAndThePeer() throws Exception {
        Path path = this.directory.resolve("echo.sock");
        CompletableFuture<Connection> seen = new CompletableFuture<>();
        EchoHandler echo = new EchoHandler() {
            @Override
            public void onOpen(Connection connection) {
                connection.peerCredentials();
                seen.complete(connection);
            }
        };
        SocketServer server = this.fixture.start(2, ListenerSettings.tcp("echo").unixPath(path).handler(echo).build());
        assertThat(server.listener("echo").address()).isEqualTo(UnixDomainSocketAddress.of(path));
        assertThat(server.listener("echo").portNumber()).isEqualTo(-1);
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            client.write(ByteBuffer.wrap("hello\n".getBytes(StandardCharsets.UTF_8)));
            ByteBuffer reply = ByteBuffer.allocate(6);
            while (reply.hasRemaining() && client.read(reply) >= 0) {
                // until the whole echo is back
            }
            assertThat(new String(reply.array(), StandardCharsets.UTF_8)).isEqualTo("hello\n");
            Connection connection = seen.get(10, TimeUnit.SECONDS);
            assertThat(connection.localAddress()).isEqualTo(UnixDomainSocketAddress.of(path));
            assertThat(connection.remoteAddress()).isEqualTo(UnixDomainSocketAddress.of(""));
            if (ServerFixture.backend().name().equals("epoll")) {
                long uid = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
                long gid = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:gid")).longValue();
                assertThat(connection.peerCredentials()).isEqualTo(new PeerCredentials(ProcessHandle.current().pid(), uid, gid));
            }
        }
    }

    @Test
    void socatAndNcAreEchoedAndTheirPidIsThePeers() throws Exception {
        Path path = this.directory.resolve("echo.sock");
        CompletableFuture<PeerCredentials> peer = new CompletableFuture<>();
        ConnectionHandler echo = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                peer.complete(connection.peerCredentials());
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        };
        this.fixture.start(1, ListenerSettings.tcp("echo").unixPath(path).handler(echo).build());
        assertThat(UnixTools.run("over socat\n", "socat", "-t", "2", "-", "UNIX-CONNECT:" + path)).isEqualTo("over socat\n");
        if (ServerFixture.backend().name().equals("epoll")) {
            assertThat(peer.get(5, TimeUnit.SECONDS).pid()).as("socat's pid, not this JVM's").isNotEqualTo(ProcessHandle.current().pid());
        }
        // -N: shut the socket's output at the end of the input, so that the reply comes and nc ends.
        assertThat(UnixTools.run("over nc\n", "nc", "-N", "-U", path.toString())).isEqualTo("over nc\n");
    }

    @Test
    void aDatagramListenerAnswersSocatAtItsBoundPath() throws Exception {
        Path path = this.directory.resolve("dgram.sock");
        Path client = this.directory.resolve("client.sock");
        ListenerSettings reflecting = ListenerSettings.udp("datagrams").unixPath(path).handler((endpoint, data, sender) -> {
            assertThat(sender.isUnix()).isTrue();
            endpoint.send(data, sender);
        }).build();
        if (!ServerFixture.backend().name().equals("epoll")) {
            // Neither the JDK nor Windows has Unix domain datagram sockets.
            assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> this.fixture.start(1, reflecting))
                    .withMessageContaining("Listener 'datagrams'").withMessageContaining("NOT_SUPPORTED");
            assertThat(path).doesNotExist();
            return;
        }
        SocketServer server = this.fixture.start(1, reflecting);
        assertThat(server.listener("datagrams").address()).isEqualTo(UnixDomainSocketAddress.of(path));
        String reply = UnixTools.run("one datagram\n", "socat", "-t", "2", "-", "UNIX-SENDTO:" + path + ",bind=" + client);
        assertThat(reply).isEqualTo("one datagram\n");
    }

    @Test
    void theFileHasThePermissionsSetAndIsRemovedAtTheStop() throws Exception {
        Path path = this.directory.resolve("private.sock");
        SocketServer server = this.fixture.start(1, ListenerSettings.tcp("private").unixPath(path).unixPermissions("rw-------")
                .handler(new EchoHandler()).build());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rw-------");
        server.stop(Duration.ofSeconds(5));
        assertThat(path).doesNotExist();
    }

    @Test
    void aServerThatStopsLeavesTheSocketFileOfOneThatBoundItsPathSince() throws Exception {
        Path path = this.directory.resolve("rolling.sock");
        SocketServer old = this.fixture.start(1, ListenerSettings.tcp("echo").unixPath(path).handler(new EchoHandler()).build());
        // A new instance takes the path over while the old one still drains (as its probe found no server answering).
        Files.delete(path);
        try (java.nio.channels.ServerSocketChannel successor = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            successor.bind(UnixDomainSocketAddress.of(path));
            old.stop(Duration.ofSeconds(5));
            assertThat(path).as("the successor's socket file").exists();
            try (java.nio.channels.SocketChannel client = java.nio.channels.SocketChannel.open(UnixDomainSocketAddress.of(path));
                    java.nio.channels.SocketChannel accepted = successor.accept()) {
                assertThat(accepted).as("a connection the successor accepted").isNotNull();
            }
        }
    }

    @Test
    void aStaleSocketFileIsReplaced() throws Exception {
        Path path = this.directory.resolve("stale.sock");
        try (java.nio.channels.ServerSocketChannel crashed = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            crashed.bind(UnixDomainSocketAddress.of(path));
        }
        assertThat(path).exists();
        this.fixture.start(1, ListenerSettings.tcp("echo").unixPath(path).handler(new EchoHandler()).build());
        assertThat(UnixTools.run("again\n", "socat", "-t", "2", "-", "UNIX-CONNECT:" + path)).isEqualTo("again\n");
    }
}

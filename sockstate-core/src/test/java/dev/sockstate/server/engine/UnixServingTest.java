package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Backend;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.PeerCredentials;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
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

    /**
     * Someone who may write the socket's directory puts a symbolic link at its path the moment the
     * socket is bound (the attack on a chmod by path after the bind): the link is not followed, the
     * file it names keeps its permissions, and the listener refuses to start rather than serve
     * beside it; nothing of the bind is left behind.
     */
    @Test
    void aSymbolicLinkPutAtThePathAsTheSocketIsBoundIsNotFollowedAndTheStartIsRefused() throws Exception {
        Path path = this.directory.resolve("shared.sock");
        Path victim = Files.createFile(this.directory.resolve("secret"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
        Backend attacked = SocketCallWatch.watched(ServerFixture.backend(), afterUnixBind((bound) -> {
            Files.deleteIfExists(path);
            Files.createSymbolicLink(path, victim);
        }));
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> this.fixture.start(attacked,
                List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), ServerObserver.NONE,
                ListenerSettings.tcp("shared").unixPath(path).unixPermissions("rw-rw-rw-").handler(new EchoHandler()).build()))
                .withMessageContaining("a file was put at its path while its socket was bound");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(victim))).isEqualTo("rw-------");
        assertThat(Files.isSymbolicLink(path)).as("the link left as it was put").isTrue();
        try (java.util.stream.Stream<Path> left = Files.list(this.directory)) {
            assertThat(left).as("nothing of the bind left").containsExactlyInAnyOrder(path, victim);
        }
    }

    /**
     * A stream socket with permissions to set is reachable at its path only once they are set: at the
     * bind, nothing is at its path yet; then the path has the permissions asked for, and the private
     * directory it was bound in is gone. Its connections tell its path as their local address.
     */
    @Test
    void aStreamSocketIsAtItsPathOnlyWithThePermissionsAskedFor() throws Exception {
        Path path = this.directory.resolve("private.sock");
        List<String> atBind = new java.util.concurrent.CopyOnWriteArrayList<>();
        Backend watched = SocketCallWatch.watched(ServerFixture.backend(), afterUnixBind((bound) -> {
            atBind.add(Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "at its path" : "not at its path");
            atBind.add(bound.getPath().getParent().getFileName().toString());
        }));
        CompletableFuture<java.net.SocketAddress> local = new CompletableFuture<>();
        EchoHandler echo = new EchoHandler() {
            @Override
            public void onOpen(Connection connection) {
                local.complete(connection.localAddress());
            }
        };
        SocketServer server = this.fixture.start(watched, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                ServerObserver.NONE, ListenerSettings.tcp("private").unixPath(path).unixPermissions("rw-------").handler(echo).build());
        assertThat(atBind).hasSize(2).first().isEqualTo("not at its path");
        assertThat(atBind.get(1)).startsWith(".sockstate-");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rw-------");
        assertThat(server.listener("private").address()).isEqualTo(UnixDomainSocketAddress.of(path));
        try (java.util.stream.Stream<Path> left = Files.list(this.directory)) {
            assertThat(left).as("the private directory removed").containsExactly(path);
        }
        assertThat(UnixTools.run("over nc\n", "nc", "-N", "-U", path.toString())).isEqualTo("over nc\n");
        assertThat(local.get(5, TimeUnit.SECONDS)).isEqualTo(UnixDomainSocketAddress.of(path));
    }

    /** What acts the moment a Unix domain socket was bound. */
    @FunctionalInterface
    private interface AfterBind {

        void bound(UnixDomainSocketAddress address) throws java.io.IOException;
    }

    private static SocketCallWatch.Watcher afterUnixBind(AfterBind action) {
        return new SocketCallWatch.Watcher() {
            @Override
            public void returned(String method, Object result, Throwable thrown) {
            }

            @Override
            public void returned(String method, Object[] arguments, Object result, Throwable thrown) {
                if (method.equals("bind") && thrown == null && arguments[1] instanceof UnixDomainSocketAddress address) {
                    try {
                        action.bound(address);
                    }
                    catch (java.io.IOException ex) {
                        throw new java.io.UncheckedIOException(ex);
                    }
                }
            }
        };
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

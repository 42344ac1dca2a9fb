package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of a backend's Unix domain sockets, on real sockets: a stream socket's addresses,
 * bytes and peer credentials; a datagram socket's sender path, or a refusal naming the family where
 * the backend has no Unix datagram sockets ({@link #hasUnixDatagrams()}).
 */
public abstract class UnixSocketsContract extends SocketsContract {

    @TempDir
    Path directory;

    /** @return whether the backend has Unix domain datagram sockets (neither the JDK nor Windows has them) */
    protected abstract boolean hasUnixDatagrams();

    /** @return whether the backend tells a Unix peer's credentials (SO_PEERCRED) */
    protected abstract boolean tellsPeerCredentials();

    @Test
    void aUnixStreamSocketEchoesAndNamesBothEndsAndThePeer() throws Exception {
        Path path = this.directory.resolve("stream.sock");
        long listener = open(Protocol.TCP);
        this.sockets.bind(listener, UnixDomainSocketAddress.of(path));
        this.sockets.listen(listener, 8);
        assertThat(this.sockets.localAddress(listener)).isEqualTo(UnixDomainSocketAddress.of(path));
        assertThat(Files.exists(path)).as("bind made the file").isTrue();
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            long connection = acceptWithin(listener);
            assertThat(this.sockets.localAddress(connection)).isEqualTo(UnixDomainSocketAddress.of(path));
            assertThat(this.sockets.remoteAddress(connection)).as("an unnamed client").isEqualTo(UnixDomainSocketAddress.of(""));
            long[] credentials = this.sockets.peerCredentials(connection);
            if (tellsPeerCredentials()) {
                assertThat(credentials).hasSize(3);
                assertThat(credentials[0]).isEqualTo(ProcessHandle.current().pid());
                assertThat(credentials[1]).isEqualTo(((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue());
            }
            else {
                assertThat(credentials).isNull();
            }
            client.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
            NativeBuffer buffer = this.sockets.allocate(64);
            int read;
            while ((read = this.sockets.recv(connection, buffer)) == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
            }
            assertThat(read).isEqualTo(5);
            buffer.buffer().flip();
            assertThat(this.sockets.send(connection, buffer)).isEqualTo(5);
            ByteBuffer reply = ByteBuffer.allocate(5);
            while (reply.hasRemaining() && client.read(reply) >= 0) {
                // until the echo is back
            }
            assertThat(new String(reply.array(), StandardCharsets.UTF_8)).isEqualTo("hello");
        }
    }

    @Test
    void aUnixDatagramSocketTellsTheSendersPathAndAnswersIt() throws Exception {
        if (!hasUnixDatagrams()) {
            assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> open(Protocol.UDP))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED));
            return;
        }
        Path serverPath = this.directory.resolve("server.sock");
        Path clientPath = this.directory.resolve("client.sock");
        long server = open(Protocol.UDP);
        this.sockets.bind(server, UnixDomainSocketAddress.of(serverPath));
        long client = open(Protocol.UDP);
        this.sockets.bind(client, UnixDomainSocketAddress.of(clientPath));
        NativeBuffer buffer = this.sockets.allocate(64);
        buffer.buffer().put("question".getBytes(StandardCharsets.UTF_8)).flip();
        assertThat(this.sockets.sendTo(client, buffer, PeerAddress.of(UnixDomainSocketAddress.of(serverPath)))).isEqualTo(8);
        buffer.buffer().clear();
        PeerAddress sender = PeerAddress.empty();
        assertThat(receiveWithin(server, buffer, sender)).isEqualTo(8);
        assertThat(sender.isUnix()).isTrue();
        assertThat(sender.toSocketAddress()).isEqualTo(UnixDomainSocketAddress.of(clientPath));
        buffer.buffer().flip();
        assertThat(this.sockets.sendTo(server, buffer, sender)).isEqualTo(8);
        buffer.buffer().clear();
        PeerAddress answerer = PeerAddress.empty();
        assertThat(receiveWithin(client, buffer, answerer)).isEqualTo(8);
        assertThat(answerer.toSocketAddress()).isEqualTo(UnixDomainSocketAddress.of(serverPath));
    }

    private long open(Protocol protocol) throws NativeIoException {
        return open(protocol, StandardProtocolFamily.UNIX);
    }

    @Override
    protected void warmUp() throws Exception {
        super.warmUp();
        try (SocketChannel warm = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            // the JDK's Unix domain channels loaded once
        }
    }

    private int receiveWithin(long socket, NativeBuffer buffer, PeerAddress sender) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        int length;
        while ((length = this.sockets.receiveFrom(socket, buffer, sender)) == NativeSockets.WOULD_BLOCK) {
            assertThat(System.currentTimeMillis()).as("a datagram within 5 s").isLessThan(deadline);
            Thread.sleep(1);
        }
        return length;
    }

}

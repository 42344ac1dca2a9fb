package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * TLS servers on loopback for tests: a listener named "tls" with the given TLS and handler, an
 * observer that records each handshake's outcome ("ok" or the failure's reason), and clients.
 */
final class TlsFixture implements AutoCloseable {

    final ServerFixture servers = new ServerFixture();

    final TlsCertificates certificates;

    /** Each handshake's outcome, "ok" or the reason it failed, in the order reported. */
    final Queue<String> handshakes = new ConcurrentLinkedQueue<>();

    /** The counts of the listener started last, as its observer was given them. */
    volatile ServerObserver.ActiveCounts counts;

    /** Connections served in plaintext beside TLS. */
    final AtomicInteger plaintext = new AtomicInteger();

    private final Queue<Socket> clients = new ConcurrentLinkedQueue<>();

    private final ServerObserver observer = new ServerObserver() {

        @Override
        public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
            TlsFixture.this.counts = active;
            return new ListenerObserver() {

                @Override
                public void handshake(boolean success, String reason, long nanos) {
                    TlsFixture.this.handshakes.add(success ? "ok" : reason);
                }

                @Override
                public void plaintextServed() {
                    TlsFixture.this.plaintext.incrementAndGet();
                }
            };
        }
    };

    TlsFixture() throws Exception {
        this.certificates = TlsCertificates.get();
    }

    /** @return a server whose listener "tls" serves the handler with this TLS */
    SocketServer start(Tls tls, ConnectionHandler handler) {
        return start(tls, handler, UnaryOperator.identity());
    }

    /** @return a server whose listener "tls", as the customizer leaves it, serves the handler with this TLS */
    SocketServer start(Tls tls, ConnectionHandler handler, UnaryOperator<ListenerSettings.Builder> customizer) {
        return start(ServerFixture.backend(), tls, handler, customizer);
    }

    /** @return a server on this backend whose listener "tls", as the customizer leaves it, serves the handler with this TLS */
    SocketServer start(Backend backend, Tls tls, ConnectionHandler handler, UnaryOperator<ListenerSettings.Builder> customizer) {
        return start(backend, WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2), tls, handler, customizer);
    }

    /** @return a server on this backend and worker group whose listener "tls", as the customizer leaves it, serves the handler with this TLS */
    SocketServer start(Backend backend, WorkerGroupSettings group, Tls tls, ConnectionHandler handler,
            UnaryOperator<ListenerSettings.Builder> customizer) {
        ListenerSettings listener = customizer.apply(ServerFixture.tcp("tls").tls(tls).handler(handler).group(group.name())).build();
        return this.servers.start(backend, List.of(group), this.observer, listener);
    }

    /** @return TLS with the server certificate (CN localhost), trusting the test CA for client certificates */
    Tls serverTls() throws Exception {
        return this.certificates.server("server");
    }

    /** @return a connected TLS client, its handshake not started, with only the protocol enabled */
    SSLSocket client(SocketServer server, String keyAlias, String protocol) throws Exception {
        SSLContext context = this.certificates.context(keyAlias);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
        this.clients.add(socket);
        socket.connect(address(server), 5000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        socket.setEnabledProtocols(new String[] {protocol});
        return socket;
    }

    /** @return a connected plain socket, for bytes that are no TLS or half a handshake */
    Socket plain(SocketServer server) throws IOException {
        return plain(server, 0);
    }

    /** @return a connected plain socket whose receive buffer, when not 0, is set before it connects (its window) */
    Socket plain(SocketServer server, int receiveBufferSize) throws IOException {
        Socket socket = new Socket();
        if (receiveBufferSize > 0) {
            socket.setReceiveBufferSize(receiveBufferSize);
        }
        this.clients.add(socket);
        socket.connect(address(server), 5000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        return socket;
    }

    static InetSocketAddress address(SocketServer server) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("tls").portNumber());
    }

    /** Writes the text and reads as many bytes back. */
    static String echo(Socket socket, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        return new String(readFully(socket.getInputStream(), bytes.length), StandardCharsets.UTF_8);
    }

    /** @return what arrived until the stream ended, or was reset (as after an alert) */
    static byte[] readAll(InputStream in) {
        java.io.ByteArrayOutputStream read = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[1024];
        try {
            int count;
            while ((count = in.read(chunk)) >= 0) {
                read.write(chunk, 0, count);
            }
        }
        catch (IOException ex) {
            // reset after the alert
        }
        return read.toByteArray();
    }

    static byte[] readFully(InputStream in, int length) throws IOException {
        byte[] read = new byte[length];
        int done = 0;
        while (done < length) {
            int count = in.read(read, done, length - done);
            if (count < 0) {
                throw new IOException("End of stream after " + done + " of " + length + " bytes");
            }
            done += count;
        }
        return read;
    }

    @Override
    public void close() throws IOException {
        for (Socket client : this.clients) {
            try {
                client.close();
            }
            catch (IOException ex) {
                // closed already, or reset
            }
        }
        this.servers.close();
    }

    /** Echoes, and records what the handler heard: opens, sessions, errors, closes. */
    /** Greets each connection as it opens, as SMTPS, IMAPS and POP3S servers do, then records and echoes as {@link Recording}. */
    static final class Greeting extends Recording {

        static final String GREETING = "* OK ready\r\n";

        @Override
        public void onOpen(Connection connection) throws Exception {
            super.onOpen(connection);
            connection.write(ByteBuffer.wrap(GREETING.getBytes(StandardCharsets.US_ASCII)));
        }
    }

    static class Recording extends EchoHandler {

        final Queue<SSLSession> sessions = new ConcurrentLinkedQueue<>();

        final Queue<Connection> connections = new ConcurrentLinkedQueue<>();

        final AtomicInteger hangups = new AtomicInteger();

        /** Whether onData closes the connection after echoing. */
        volatile boolean closeAfterEcho;

        @Override
        public void onOpen(Connection connection) throws Exception {
            this.sessions.add(connection.tlsSession());
            this.connections.add(connection);
            super.onOpen(connection);
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) throws Exception {
            super.onData(connection, data);
            if (this.closeAfterEcho) {
                connection.close();
            }
        }

        @Override
        public void onHangup(Connection connection) throws Exception {
            this.hangups.incrementAndGet();
            super.onHangup(connection);
        }

        /** @return how many handler calls there were of any kind */
        int calls() {
            return this.opened.get() + this.closed.get() + this.errors.size() + this.hangups.get();
        }
    }
}

package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * The TLS comparison's client: the JDK's {@link SSLSocket}s on TLS 1.3, each connection on a thread
 * of its own, the same for every server. A connection for a full handshake names a server host of
 * its own, so the client's session cache never offers one to resume; one meant to resume names its
 * thread's host again.
 */
final class TlsLoad {

    private static final AtomicLong HOSTS = new AtomicLong();

    private final SSLContext context;

    private final int port;

    TlsLoad(int port) throws Exception {
        this.context = TlsKeys.clientContext();
        this.port = port;
    }

    /** @return a connected TLS socket, its full handshake done */
    SSLSocket connect() throws IOException {
        // A host of its own: no cached session matches, so nothing is resumed.
        return connect("host-" + HOSTS.incrementAndGet());
    }

    /**
     * @param host the server name the client gives, the key of its session cache: the same again resumes the
     *     session (its ticket) the last connection to it got
     * @return a connected TLS socket, its handshake done
     */
    SSLSocket connect(String host) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 10_000);
        plain.setTcpNoDelay(true);
        plain.setSoTimeout(30_000);
        SSLSocket socket = (SSLSocket) this.context.getSocketFactory().createSocket(plain, host, this.port, true);
        socket.setEnabledProtocols(new String[] {"TLSv1.3"});
        socket.startHandshake();
        return socket;
    }

    /** Sends the message and reads it back whole. */
    static void echo(Socket socket, byte[] message, byte[] into) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(message);
        out.flush();
        InputStream in = socket.getInputStream();
        int done = 0;
        while (done < into.length) {
            int count = in.read(into, done, into.length - done);
            if (count < 0) {
                throw new IOException("The server closed the connection after " + done + " of " + into.length + " bytes");
            }
            done += count;
        }
    }

    /**
     * Runs loops on threads of their own until {@code running} turns false, and counts what they did.
     * @param threads how many loops
     * @param body one loop's work: one echo on its connection, or one whole connection
     * @param counted the loops' count, read by the caller between windows
     * @param running cleared by the caller to stop the loops
     * @return the threads, started
     */
    static List<Thread> loops(int threads, LoopBody body, AtomicLong counted, AtomicBoolean running, AtomicReference<Throwable> failure) {
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread thread = new Thread(() -> {
                try (LoopState state = body.open(index)) {
                    while (running.get()) {
                        state.once();
                        counted.incrementAndGet();
                    }
                }
                catch (Throwable ex) {
                    if (running.get()) {
                        failure.compareAndSet(null, ex);
                    }
                }
            }, "tls-load-" + i);
            thread.setDaemon(true);
            thread.start();
            started.add(thread);
        }
        return started;
    }

    /** What one load thread does. */
    interface LoopBody {

        /** @return the state of loop {@code index}: its connection, say */
        LoopState open(int index) throws Exception;
    }

    /** One load thread's state and step. */
    interface LoopState extends AutoCloseable {

        /** One step: an echo, or a whole connection. */
        void once() throws Exception;

        @Override
        default void close() throws Exception {
        }
    }
}

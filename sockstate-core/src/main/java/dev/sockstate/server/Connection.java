package dev.sockstate.server;

import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.tls.ApplicationProtocol;
import dev.sockstate.server.tls.Tls;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * A TCP connection (or a Unix domain stream socket's) as a handler sees it. Writing never blocks: what the socket does not take at
 * once is queued and sent when the socket becomes writable. Every method may be called from any
 * thread; calls from other threads than the one handling the connection are handed to a worker.
 */
public interface Connection {

    /** @return a number that identifies the connection for the life of the server */
    long id();

    /** @return the name of the listener that accepted it; {@code null} for a client's connection */
    @Nullable String listenerName();

    /**
     * @return the name of the {@link dev.sockstate.server.client.SocketClient client} that opened it;
     * {@code null} for an accepted connection
     */
    default @Nullable String clientName() {
        return null;
    }

    /**
     * @return the local address: an {@code InetSocketAddress} for TCP, a {@code UnixDomainSocketAddress}
     * (the listener's path) for a Unix domain socket
     */
    SocketAddress localAddress();

    /**
     * @return the peer's address: an {@code InetSocketAddress} for TCP, a {@code UnixDomainSocketAddress}
     * for a Unix domain socket, whose path is usually empty (a client's socket is seldom bound to a file);
     * behind a load balancer, the client's address its PROXY protocol header names ({@link #proxyHeader()})
     */
    SocketAddress remoteAddress();

    /**
     * @return the pid, uid and gid of the process that connected to a Unix domain socket, as the
     * system recorded them when it connected ({@code SO_PEERCRED}); {@code null} for a TCP
     * connection, or where the backend tells none (see {@link PeerCredentials})
     */
    default @Nullable PeerCredentials peerCredentials() {
        return null;
    }

    /**
     * Sends the buffer's remaining bytes, queueing what the socket does not take at once. The buffer
     * is consumed (its position moves to its limit) and may be reused when the call returns. With
     * framing, each write is one frame (an empty write an empty frame), and the frames written on a
     * worker while one read's frames are handled leave together once they all were.
     * @param data the bytes
     */
    void write(ByteBuffer data);

    /**
     * Sends bytes, as {@link #write(ByteBuffer)}.
     * @param data the bytes
     */
    default void write(byte[] data) {
        write(ByteBuffer.wrap(data));
    }

    /**
     * Sends one message: a {@code ByteBuffer} or {@code byte[]} as it is, a {@code String} in the
     * listener's charset, any other object as the listener's {@link MessageMapper} writes it. With
     * framing, it goes out as one frame.
     * @param message the message
     * @throws IllegalArgumentException when the listener has no mapper that writes its type
     */
    void send(Object message);

    /**
     * Reads a message, as {@link MessageHandler} does: a {@code ByteBuffer} is the message itself, a
     * {@code byte[]} a copy, a {@code String} decoded in the listener's charset, any other type read
     * by the listener's {@link MessageMapper}.
     * @param message one whole message (a frame), from position to limit
     * @param type what to read it as
     * @param <T> the type
     * @return the message
     * @throws InvalidMessageException when the bytes do not read as that type
     * @throws IllegalArgumentException when the listener has no mapper that reads the type
     */
    <T> T readMessage(ByteBuffer message, Class<T> type) throws InvalidMessageException;

    /** @return how many written bytes wait in the queue for the socket to take them */
    long pendingWriteBytes();

    /**
     * @return false while more than the connection's limit of pending write bytes waits to be sent (its
     * listener's or client's {@code maxPendingWriteBytes}, written from any thread); once a connection
     * was seen so, its handler's {@link ConnectionHandler#onWritable onWritable} follows when all of it
     * is sent, which is when a proxy resumes reading the side that fed it ({@link dev.sockstate.server.client.Relay})
     */
    boolean isWritable();

    /**
     * Stops reading: nothing more is read from the socket (the peer's bytes wait in the system's buffer,
     * and then the peer's own, which slows it down) until {@link #resumeReading()}; writes go on. A
     * proxy pauses the side whose bytes the other side cannot send as fast. Any thread; a repeated call
     * does nothing more.
     */
    void pauseReading();

    /** Reads again after {@link #pauseReading()}, beginning with what waited meanwhile. Any thread. */
    void resumeReading();

    /** @return whether reading is paused by {@link #pauseReading()} */
    boolean isReadingPaused();

    /**
     * Half-closes: sends FIN once queued bytes are sent; reading goes on. A write made after this is
     * dropped (and logged): it has no way out.
     */
    void shutdownOutput();

    /**
     * Closes once queued bytes are sent: the FIN goes, and what the peer still sends is dropped until
     * its FIN comes, a second at most, so that no reset cuts the reply short; the handler's
     * {@code onClose} follows.
     */
    void close();

    /**
     * @return whether writes still reach the peer: true until the connection is closed, aborted or
     * closing at its handler's request; during a graceful shutdown's drain, which answers what already
     * arrived before closing, it stays true
     */
    boolean isOpen();

    /** @return per-connection state for handlers, created on first use */
    Map<String, Object> attributes();

    /**
     * Attaches one object to the connection, the cheapest way to keep per-connection state (a
     * field, where {@link #attributes()} creates a map).
     * @param attachment the object, or {@code null} to drop it
     */
    void attach(@Nullable Object attachment);

    /** @return the attached object, or {@code null} */
    @Nullable Object attachment();

    /**
     * @param <T> the type asked for
     * @param type the type a stage published the value as ({@link StageContext#publish})
     * @return what a stage of the connection's pipeline published as that type, {@code null} when none
     * did (yet); any thread
     */
    default <T> @Nullable T published(Class<T> type) {
        return null;
    }

    /**
     * @return the TLS session of a connection of a listener or client with {@link ConnectionSettings#tls() TLS}
     * once its handshake succeeded (the protocol, the cipher suite, the peer's certificates when it
     * sent some), {@code null} for a plaintext connection; any thread
     */
    default @Nullable SSLSession tlsSession() {
        return published(SSLSession.class);
    }

    /**
     * Starts TLS on a connection that began in plaintext, as its protocol's STARTTLS asks, on a
     * listener or client whose TLS starts on request ({@link Tls#withStartTls}). Typically called from
     * the handler's call that handled the command and wrote its answer: what the handler wrote before
     * goes out in plaintext, what it writes after is sent once the handshake ended, in order. The
     * bytes that arrived after the command (those of the frame's read that follow it, or those the
     * handler leaves unconsumed in the buffer of the call) are the handshake's: the handler is not
     * handed them (nor are what the listener's own stages pass on after it, in the same read). From
     * another thread the start is handed to the connection's thread after the writes that thread made
     * before it; what arrived meanwhile is read as plaintext still, so a client whose protocol must not
     * read anything after the server's answer in plaintext starts TLS where the answer is read: in its
     * handler, or in the request's {@code ReplyHandler}, which runs on the connection's thread. A
     * client's connection sends its hello at once. {@link #tlsSession()} is set once the handshake
     * succeeded; a failed one aborts the connection, and the handler's {@code onError} hears why.
     * @throws IllegalStateException on a connection whose TLS does not start on request, or, on the
     * connection's thread, once TLS was started (asked again from another thread, the connection fails)
     */
    default void startTls() {
        throw new IllegalStateException("Connection " + id() + " has no TLS to start on request (Tls.withStartTls, ssl.start-tls)");
    }

    /**
     * @return the application protocol its TLS handshake chose (ALPN: {@code "h2"}, {@code "mqtt"}...),
     * on a connection whose listener or client names some ({@link Tls#withApplicationProtocols}), once
     * the handshake succeeded; {@code null} for none (a client that offered none, a server that picked
     * none, a plaintext connection); any thread
     */
    default @Nullable String applicationProtocol() {
        ApplicationProtocol chosen = published(ApplicationProtocol.class);
        return (chosen != null) ? chosen.name() : null;
    }

    /**
     * @return the PROXY protocol header the connection began with (the client's and the balancer's
     * addresses, the TLVs), on a listener with {@link ListenerSettings#proxyProtocol() the PROXY protocol}
     * once it was read; {@code null} for a connection without one; any thread
     */
    default @Nullable ProxyHeader proxyHeader() {
        return published(ProxyHeader.class);
    }
}

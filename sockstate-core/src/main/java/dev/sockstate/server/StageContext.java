package dev.sockstate.server;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A {@link Stage}'s link to its neighbours in a connection's pipeline: inbound events are passed on
 * towards the handler, outbound bytes towards the socket. Only to be used by the thread calling the
 * stage, but for {@link #resume}, {@link #connection()} and a {@link Deadline}'s cancel, which any
 * thread may call.
 */
public interface StageContext {

    /** @return the connection the pipeline serves */
    Connection connection();

    /** Passes the open on: to the next stage's {@link Stage#open}, or the handler's {@code onOpen}. */
    void passOpen();

    /**
     * Passes a message on: to the next stage's {@link Stage#data}, or the handler's {@code onData}.
     * @param message the bytes, from position to limit, valid during the call
     */
    void passData(ByteBuffer message);

    /** Passes the peer's hang-up on: to the next stage's {@link Stage#hangup}, or the handler's {@code onHangup}. */
    void passHangup();

    /**
     * Writes towards the socket: to the previous stage's {@link Stage#write}, or the socket, which
     * queues what it does not take at once.
     * @param data the bytes, from position to limit; consumed
     */
    void write(ByteBuffer data);

    /** Closes the connection once queued bytes are sent, as {@link Connection#close()} does. */
    void close();

    /**
     * Aborts the connection at once; the handler's {@code onError} receives the reason.
     * @param reason why, such as a protocol violation of the peer
     */
    void abort(Throwable reason);

    /**
     * Ends the connection for a failure after its last words: as {@link #abort}, the handler's
     * {@code onError} receives the reason (unless it heard of an earlier failure the connection is
     * closing for) and nothing more is read or passed on, but the bytes written before (a stage's
     * alert to the peer, say, behind what was queued for it) leave first, and the connection then
     * closes as a close does. It is aborted instead when the peer has not taken them within a second,
     * or when nothing waits to be sent.
     * @param reason why, such as a protocol violation of the peer
     */
    default void fail(Throwable reason) {
        abort(reason);
    }

    /**
     * Goes on with the stage on the thread that owns the connection: the way back for work the stage
     * handed to another thread, such as a TLS engine's delegated task. The task runs in the
     * connection's turn, as the stage's own methods do (never beside one of them), with the stage's
     * context at hand: at the start of the next turn, which this call asks for, or, called by the
     * owning thread itself, once the current turn's work is done. Tasks run in the order they were
     * resumed; what they pass on or write goes on as from the stage's methods, and a task that throws
     * aborts the connection as they do. Once the connection is closed, tasks are dropped unrun.
     * @param task what the stage does next; any thread may call this
     */
    void resume(Runnable task);

    /**
     * Stops or resumes reading from the socket: a stage that cannot take more input for now (its
     * engine's step runs on another thread, say) holds it, and what arrives meanwhile waits in the
     * socket, not in the stage; once no stage holds it, the connection reads what waited in its next
     * turn. Each stage's hold is its own: releasing it releases no other stage's. Only the rest of the
     * read at hand still arrives while the input is held. The owner's thread only.
     * @param hold whether to hold the input
     */
    void holdInput(boolean hold);

    /**
     * @return whether what arrives is still handled: the connection is not aborted, nor closing but
     * for a graceful stop, which answers what arrived first; a stage that keeps bytes for later keeps
     * none once this is false
     */
    boolean takesInput();

    /**
     * Publishes what the stage learned of its connection, for the handler and any thread to read with
     * {@link Connection#published(Class)}: the TLS stage publishes the {@link javax.net.ssl.SSLSession}
     * it established ({@link Connection#tlsSession()}), the PROXY protocol's stage the
     * {@link dev.sockstate.server.proxy.ProxyHeader} it read ({@link Connection#proxyHeader()}), an
     * application's stage what its own protocol told (a negotiated version, a session's id). One value
     * per type: a later one replaces it. The owner's thread only.
     * @param <T> the type it is published as
     * @param type the type it is published as, and read by
     * @param value the value
     */
    <T> void publish(Class<T> type, T value);

    /**
     * Tells the connection who its peer is, as a protocol a stage read names it (the client a PROXY
     * protocol header relays): {@link Connection#remoteAddress()} answers it from now on. The owner's
     * thread only.
     * @param address the peer's address
     * @throws IllegalArgumentException on an IP port, for an address that is not an
     * {@code InetSocketAddress}: the handlers of an IP listener's connections may take it as one
     */
    void peerAddress(SocketAddress address);

    /**
     * Sets a deadline of the stage's: once the delay has passed, unless it was cancelled first, the
     * task runs in the connection's turn, as a {@linkplain #resume resumed} task does (and not at all
     * once the connection is closed): a handshake's or a header's limit, a heartbeat's answer. The
     * server's timer keeps the time; an embedded connection has none, and its deadlines never pass.
     * @param delay how long from now
     * @param task what the stage does then
     * @return the deadline, to cancel once what it waited for happened
     */
    Deadline deadline(Duration delay, Runnable task);

    /** A stage's deadline ({@link #deadline}). */
    interface Deadline {

        /** A deadline that never passes, to start a stage's field with. */
        Deadline NONE = () -> {
        };

        /** Cancels the deadline: its task does not run, unless it began; any thread, any number of times. */
        void cancel();
    }
}

package dev.sockstate.server.observer;

import dev.sockstate.port.Operation;
import dev.sockstate.server.admission.Refusal;
import org.jspecify.annotations.Nullable;

/**
 * What one listener, or one client's connections, report, resolved once at start-up; every method must
 * be cheap and thread-safe.
 */
public interface ListenerObserver {

    /** Reports nothing. */
    ListenerObserver NONE = new ListenerObserver() {
    };

    /**
     * A registration change was applied.
     * @param operation enable, disable or remove
     * @param success whether the port accepted it
     */
    default void registrationChanged(Operation operation, boolean success) {
    }

    /**
     * A notification was dequeued for one of the listener's sockets.
     * @param events its events ({@link dev.sockstate.port.Events})
     */
    default void notification(int events) {
    }

    /** @return whether {@link #handled} wants handler times (costs a clock read a call, and one a read for framed messages; two a datagram's call) */
    default boolean timesHandlers() {
        return false;
    }

    /**
     * @return whether handler times may come summed over the calls of one read, or of one receive of
     * datagrams ({@link #handled(int, long)}), instead of one by one: for an observer that keeps a count
     * and a total, no distribution of single calls; it spares each call its clock reading
     */
    default boolean sumsHandlerTimes() {
        return false;
    }

    /**
     * Handler calls for the frames of one read (the datagrams of one receive) returned without failing,
     * timed together ({@link #sumsHandlerTimes()}). A call that failed among them is reported on its
     * own, with the time of the read up to its end (its own, and that of the calls before it).
     * @param calls how many
     * @param nanos how long they took together: from the read to the end of its handling (finding the
     * frames, and on a client's connection the replies handed on, included)
     */
    default void handled(int calls, long nanos) {
        handled(nanos, false);
        for (int i = 1; i < calls; i++) {
            handled(0, false);
        }
    }

    /**
     * A handler call returned.
     * @param nanos how long it took, when {@link #timesHandlers()}, else zero: for a framed message, from the
     * end of the call before it in the same read (or from the read), so that finding its frame counts with it
     * @param failed whether it threw
     */
    default void handled(long nanos, boolean failed) {
    }

    /** The server stopped and the listener is gone: what it reported is not to be read from it any more. */
    default void closed() {
    }

    /** A connection went without traffic for the listener's idle timeout, and is being closed. */
    default void idleClosed() {
    }

    /** A connection stopped reading: its queued writes passed the listener's max-pending-write-bytes. */
    default void readPaused() {
    }

    /**
     * The listener could not accept (out of descriptors or memory) and pauses accepting for a while,
     * instead of spinning on a listening socket that stays readable.
     */
    default void acceptBackedOff() {
    }

    /**
     * A peer's frame was refused: its bytes did not frame (over the listener's limit, a malformed
     * length) or did not read as the handler's message type. Its connection was closed, or its
     * datagram dropped.
     */
    default void frameRejected() {
    }

    /** The listener's handler executor refused a task: its connection failed, or its datagram was dropped. */
    default void handlerRefused() {
    }

    /** The listener's socket closed for good while the server runs (the port refused to re-arm it, say). */
    default void stoppedServing() {
    }

    /** A connection was accepted. */
    default void accepted() {
    }

    /** @param reason why a connection was closed at once as it was accepted: the listener's maximum, or its admission's rules */
    default void rejected(Refusal reason) {
    }

    /** @param bytes bytes received */
    default void received(int bytes) {
    }

    /** @param bytes bytes sent */
    default void sent(int bytes) {
    }

    /**
     * A connection's traffic shaping held it back, and lets it go on now (or it closed).
     * @param read whether its reads waited, or its writes (which waited in its queue)
     * @param nanos how long
     */
    default void throttled(boolean read, long nanos) {
    }

    /**
     * A client's heartbeat pinged a quiet pool connection, or aborted one whose ping went unanswered.
     * @param timedOut whether the connection was aborted (else a ping was sent)
     */
    default void heartbeat(boolean timedOut) {
    }

    /**
     * One receive call of a UDP listener took datagrams (as many as its batch and the socket's queue allowed).
     * @param datagrams how many, at least one
     */
    default void receivedDatagrams(int datagrams) {
    }

    /**
     * The system reported datagrams it dropped at a UDP listener's socket, mostly because its receive
     * buffer was full (epoll: {@code SO_RXQ_OVFL}, learnt with the next datagram received).
     * @param datagrams how many more since the last report
     */
    default void datagramsOverflowed(long datagrams) {
    }

    /** @param datagrams datagrams a UDP listener sent */
    default void sentDatagrams(int datagrams) {
    }

    /** A datagram was not sent: the socket's send buffer was full, or the send failed (its target unreachable, say). */
    default void datagramDropped() {
    }

    /**
     * A connection's TLS handshake ended, or a renegotiation was refused.
     * @param success whether it succeeded: the handler hears of the connection only then
     * @param reason why it failed, one word of a few: {@code "timeout"} (not done within the
     * listener's handshake timeout), {@code "plaintext"} (the peer spoke something else than TLS),
     * {@code "certificate"} (a certificate missing or not trusted), {@code "application-protocol"} (no
     * application protocol (ALPN) both sides name: a listener refused a client that offered only
     * others, or a client was so refused), {@code "protocol"} (no common
     * protocol or cipher suite, a malformed or unexpected message), {@code "renegotiation"} (refused
     * after the handshake), {@code "closed"} (the peer left or the connection closed first),
     * {@code "rejected"} (the task executor refused the engine's work), {@code "configuration"} (no
     * engine could be made of the context); {@code null} on success
     * @param nanos how long it took from the connection's open
     */
    default void handshake(boolean success, @Nullable String reason, long nanos) {
    }

    /**
     * A connection of a listener that serves plaintext beside TLS began with something else than a
     * TLS handshake, and is served in plaintext.
     */
    default void plaintextServed() {
    }

    /**
     * A connection's PROXY protocol header was read, or refused (the connection is then closed).
     * @param accepted whether it was read: the handler hears of the connection only then
     * @param reason why it was refused, one word of a few: {@code "malformed"} (not a header the protocol
     * allows), {@code "version"} (a version the listener does not accept), {@code "oversized"} (longer
     * than the listener's limit), {@code "untrusted"} (from a peer outside the trusted proxies),
     * {@code "timeout"} (not whole within the listener's header timeout), {@code "closed"} (the connection
     * ended before its header was whole); {@code null} when read
     */
    default void proxyHeader(boolean accepted, @Nullable String reason) {
    }

    /**
     * A client's connect ended (its connections only).
     * @param outcome one word of a few: {@code "connected"}, {@code "refused"} (nothing listens there),
     * {@code "timeout"} (no answer within the connect timeout), {@code "unresolved"} (the host name did
     * not resolve), {@code "tls"} (the TLS handshake failed: the server's certificate is not trusted or
     * does not name the server, say), {@code "failed"} (any other error)
     */
    default void connect(String outcome) {
    }

    /**
     * A client's request ended (its connections only).
     * @param outcome {@code "success"}, {@code "failed"} (the connection failed or closed first, or none
     * was open) or {@code "timeout"}
     * @param nanos how long it took from the send: for a request a handler made on a worker, from the read
     * that handler call came of, to the read that brought the reply (each read's clock is read once)
     */
    default void request(String outcome, long nanos) {
    }

    /**
     * @return whether the requests answered in one read of a client's connection may come counted
     * together ({@link #requests(int, long)}): for an observer that keeps a count and a total of them
     */
    default boolean sumsRequestTimes() {
        return false;
    }

    /**
     * Requests answered in one read of a client's connection, counted together ({@link #sumsRequestTimes()}).
     * @param count how many succeeded
     * @param nanos their times added up, each from its send to the read
     */
    default void requests(int count, long nanos) {
        for (int i = 0; i < count; i++) {
            request("success", nanos / count);
        }
    }
}

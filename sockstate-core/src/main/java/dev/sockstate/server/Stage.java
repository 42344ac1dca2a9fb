package dev.sockstate.server;

import java.nio.ByteBuffer;

/**
 * One step of a TCP connection's pipeline, between its socket and its handler: where a protocol
 * layer such as TLS or framing plugs in. A listener's stages are made afresh for each connection
 * ({@link ConnectionSettings.Builder#stage}), so a stage may keep per-connection state in fields.
 * <p>
 * <b>Order.</b> Inbound events run from the socket through the stages in the order they were added
 * to the handler: bytes read, then the first stage, then the next, then {@link ConnectionHandler}.
 * Outbound bytes run the other way: the handler's {@link Connection#write} goes to the last stage,
 * then the one before, then the socket.
 * <p>
 * <b>Threads.</b> A connection's stages are called by the thread that owns the connection at the
 * time, one thread at a time, like its handler, so they need no locking. Writes from other threads
 * reach the stages on the owning thread. A stage that hands slow work to another thread (a TLS
 * engine's delegated task, a lookup) goes on with its result through {@link StageContext#resume}:
 * the task given there runs on the owning thread, in the connection's turn, like the stage's own
 * methods, never beside them. Meanwhile the stage keeps what arrives (a copy) and answers it later.
 * <p>
 * <b>What a stage may do.</b> Each method receives the {@link StageContext} of this stage and, by
 * default, passes the event on unchanged. A stage may instead:
 * <ul>
 * <li>transform bytes both ways: pass on other bytes than it received, inbound with
 * {@link StageContext#passData} and outbound with {@link StageContext#write};</li>
 * <li>keep bytes across reads: copy what it cannot use yet (half a frame, half a TLS record) into a
 * buffer of its own and use it when more arrives;</li>
 * <li>turn one read into zero or many messages: call {@link StageContext#passData} as often as it
 * has whole messages, including not at all;</li>
 * <li>write when no handler wrote: call {@link StageContext#write} from any of its methods (a
 * handshake's first message from {@link #open});</li>
 * <li>delay the handler's {@code onOpen}: not call {@link StageContext#passOpen} from {@link #open},
 * but later, from {@link #data}, once its handshake ended. Until a stage passed the open on, it must
 * not pass data on (the pipeline refuses it, failing the connection);</li>
 * <li>ask for a close: {@link StageContext#close()} closes once queued bytes are sent,
 * {@link StageContext#abort} at once, reporting the reason to the handler's {@code onError}, and
 * {@link StageContext#fail} reports it too but closes once what was written before (an alert) is sent;</li>
 * <li>write a last message as the output ends ({@link #outputEnding}): TLS's {@code close_notify};</li>
 * <li>hold the input while it cannot take more ({@link StageContext#holdInput}), keep time
 * ({@link StageContext#deadline}: a handshake's limit, a heartbeat), and publish what it learnt
 * ({@link StageContext#publish}: a TLS session, a PROXY protocol header; {@link StageContext#peerAddress}).</li>
 * </ul>
 * The engine's own TLS and PROXY protocol stages are such stages, made first for each connection of a
 * listener that asks for them, and do nothing a stage of yours cannot.
 * <b>Buffers.</b> A buffer passed to a stage is valid only during the call and belongs to the
 * caller (inbound, usually the worker's read buffer): copy what must outlive it. A buffer passed on
 * with {@link StageContext#write} is consumed (its position moves to its limit) and may be reused
 * once the call returns, as with {@link Connection#write}.
 * <p>
 * <b>Failures.</b> A method that throws aborts the connection: the error is logged once with the
 * listener's name and counted, and reaches the handler's {@code onError}. The handler hears of a
 * connection only once the open reached it: before that (a handshake that failed, say) it is told
 * neither of the error nor of the close.
 */
public interface Stage {

    /**
     * The connection was accepted and registered.
     * @param context this stage's context
     * @throws Exception to abort the connection
     */
    default void open(StageContext context) throws Exception {
        context.passOpen();
    }

    /**
     * Bytes arrived from the socket side.
     * @param context this stage's context
     * @param data the bytes, from position to limit, valid during the call
     * @throws Exception to abort the connection
     */
    default void data(StageContext context, ByteBuffer data) throws Exception {
        context.passData(data);
    }

    /**
     * Bytes are going out from the handler side.
     * @param context this stage's context
     * @param data the bytes, from position to limit; consume them (pass them on, or keep a copy)
     * @throws Exception to abort the connection
     */
    default void write(StageContext context, ByteBuffer data) throws Exception {
        context.write(data);
    }

    /**
     * The peer closed its side: no more bytes will arrive.
     * @param context this stage's context
     * @throws Exception to abort the connection
     */
    default void hangup(StageContext context) throws Exception {
        context.passHangup();
    }

    /**
     * The connection's output is about to end, gracefully: it closes once what was written is sent
     * (a {@link Connection#close()}, a stage's {@link StageContext#close()}, an idle timeout, a
     * graceful stop of the server), or the handler shut it down ({@link Connection#shutdownOutput()}).
     * The last moment to write: what the stage writes now goes out before the FIN. Called at most
     * once per connection, in outbound order (the stage nearest the handler first), once what was
     * written before is sent; not called when the connection is aborted, but called (after the
     * failing stage's last words) when a stage fails it.
     * @param context this stage's context
     * @throws Exception to abort the connection
     */
    default void outputEnding(StageContext context) throws Exception {
    }

    /**
     * The connection is closed: release what the stage keeps. Called once per stage, in inbound
     * order, before the handler's {@code onClose}; nothing else follows it.
     * @param context this stage's context
     */
    default void closed(StageContext context) {
    }
}

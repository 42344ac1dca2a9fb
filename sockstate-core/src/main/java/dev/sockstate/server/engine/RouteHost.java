package dev.sockstate.server.engine;

import dev.sockstate.server.Connection;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.framing.FrameDecoder;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A connection as its {@link Route} sees it: what the stages, the framing and the handler calls ask
 * of the connection they serve, and the two ends the route leads to. The route never names the
 * connection's class; the connection implements this. Every method is its owner's (the thread in its
 * turn), unless it says otherwise.
 */
interface RouteHost extends Connection, FrameDecoder.Progress {

    /** @param hold whether the connection stops reading from its socket until released ({@link StageContext#holdInput}) */
    void holdInput(boolean hold);

    /** @return whether what arrives is still handled ({@link StageContext#takesInput}) */
    boolean takesInput();

    /** {@link StageContext#publish}: what a stage learned of the connection, published as a type. */
    <T> void publish(Class<T> type, T value);

    /** @param address the peer's address, as a stage's protocol names it ({@link StageContext#peerAddress}) */
    void peerAddress(SocketAddress address);

    /**
     * @return the host a client's connection connects to, as its address names it (a name, or a
     * literal address): the server name its TLS asks for and checks; {@code null} for an accepted connection
     */
    default @Nullable String connectedHost() {
        return null;
    }

    /** @return the port a client's connection connects to; -1 for an accepted connection */
    default int connectedPort() {
        return -1;
    }

    /**
     * @return whether the handler started TLS in the call at hand ({@link Connection#startTls()}) and the
     * bytes after its command are still to be handed back ({@link #tlsRest}): nothing more goes to the handler
     */
    boolean tlsStarting();

    /** @param rest the bytes held after the command that started TLS: the handshake's first bytes; consumed */
    void tlsRest(ByteBuffer rest);

    /** @param data bytes that passed the stages inbound: to the framing, or to the handler as they are */
    void handlerEnd(ByteBuffer data);

    /**
     * @param data bytes that passed the stages outbound: to the write path, which sends or queues them
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void socketEnd(ByteBuffer data, boolean owned);

    /**
     * @param data bytes the handler's side sent, framed if the route frames them: through the stages, if any, to the socket
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void toSocket(ByteBuffer data, boolean owned);

    /**
     * @param error why the connection failed (a native call, a stage): it is aborted, and the handler's
     * onError told, unless it heard of an earlier failure the connection is closing for
     */
    void failed(Throwable error);

    /**
     * @param error why a stage failed the connection: nothing more is read, the handler's onError is told
     * (unless it heard of an earlier failure), and the connection closes once what was written is sent,
     * or is aborted when that takes too long or nothing waits to be sent
     */
    void failedAfterWrites(Throwable error);

    /**
     * The peer's bytes were refused (they do not frame, or do not read as the handler's message
     * type): the handler's onError hears why, then the connection closes once its answer is sent.
     */
    void rejected(Exception why);

    /** @param abort whether to abort (reset) rather than close once what is queued is sent; any thread */
    void requestClose(boolean abort);

    /** Asks for a turn of the connection's own, to run work that came from another thread; any thread. */
    void requestTurn();

    /** @return whether the connection is aborted or being aborted; any thread */
    boolean isAborting();

    /** @return whether a close was asked for; any thread */
    boolean isClosing();

    /** @return whether the close is a graceful stop's, which answers what arrived first; any thread */
    boolean isDraining();

    /** @return whether the calling thread owns the connection now; any thread */
    boolean isOwnedByCurrentThread();

    /**
     * @param delayMillis how long from now
     * @param task what the server's timer runs then, unless cancelled first (any thread's)
     * @return the deadline; one that never passes without a timer (an embedded connection)
     */
    StageContext.Deadline deadline(long delayMillis, Runnable task);

    /** @return whether its reads pause while its own queue is over its limit and is so now */
    boolean pausesForOwnWrites();

    // What the framing keeps for the connection, held in the connection so that it keeps no object of
    // its own for it (the Framer alone touches it).

    /** @return the unfinished frame kept across reads, or the rest of a read held back; {@code null} when none */
    @Nullable ByteBuffer framingPartial();

    /** @param partial see {@link #framingPartial()} */
    void framingPartial(@Nullable ByteBuffer partial);

    /** @return when the unfinished frame began, in the Framer's coarse clock; 0 when no frame is timed */
    int framingSince();

    /** @param since see {@link #framingSince()}; the time counted paused starts again from none */
    void framingSince(int since);

    /** @return how long the unfinished frame waited while the connection did not read, in the Framer's coarse clock */
    int framingPaused();

    /** @return what {@link #framingPartial()} holds (the Framer's constants) */
    byte framingKept();

    /** @param kept see {@link #framingKept()} */
    void framingKept(byte kept);

    /** @return whether one read's frames are being handed out, so that their replies are gathered */
    boolean framingGathers();

    /** @param gathers see {@link #framingGathers()} */
    void framingGathers(boolean gathers);

    /** @return the replies gathered while a read's frames are handed out (a buffer lent for that time), or {@code null} */
    @Nullable ByteBuffer framingReplies();

    /** @param replies see {@link #framingReplies()} */
    void framingReplies(@Nullable ByteBuffer replies);

    // FrameDecoder.Progress: what the decoder saved of the unfinished frame held, kept with what the connection seldom needs.

    /** @return the bytes of a refused frame still to be discarded as they arrive; 0 when none */
    long framingSkip();

    /** @param count see {@link #framingSkip()} */
    void framingSkip(long count);

    /**
     * @return the length the unfinished frame held is known to reach ({@code FrameDecoder.atLeast}), before which
     * its decoder is not asked again; 0 when none was announced
     */
    long framingLeast();

    /** @param length see {@link #framingLeast()} */
    void framingLeast(long length);
}

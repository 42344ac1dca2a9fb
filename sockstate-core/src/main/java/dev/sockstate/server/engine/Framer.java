package dev.sockstate.server.engine;

import dev.sockstate.port.LendingPool;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import dev.sockstate.server.engine.turn.RunClock;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.framing.FramingException.Reason;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A listener's or client's framing, the last inbound element of its {@link Route} before the handler
 * (the first outbound after it): cuts what reaches the handler
 * into whole frames, one call each, and frames what the handler writes. A frame that lies whole in
 * the bytes at hand reaches the handler as a view of them (their position and limit moved around
 * it, then put back), without a copy; only an unfinished frame is copied, into the connection's
 * {@link RouteHost#framingPartial()}, which grows up to the longest frame allowed and is dropped
 * once the frame is complete, so an idle connection keeps no buffer. What those buffers hold over
 * all the route's connections is counted against the framing's budget of unfinished bytes (the
 * connection whose buffer would pass it is refused), and a frame kept across reads is timed from
 * then, for the server's sweep to close its connection once it is overdue. On the workers, the replies
 * written while one read's frames are handed out are gathered in a buffer lent for that time
 * ({@link RouteHost#framingReplies()}) and leave in one send after the last frame, as an event loop
 * flushes once a read is handled: a pipeline of requests costs one system call for its replies, not
 * one each. One per route, used by each connection's owning thread; what it keeps for a
 * connection is in the connection's {@code framing*} slots ({@link RouteHost}), which no other class
 * touches, so that a connection keeps no object of its own for it.
 */
final class Framer {

    /** {@link RouteHost#framingKept()}: part of one frame, whose every byte the decoder searched and found no end in. */
    private static final byte SEARCHED = 0;

    /** {@link RouteHost#framingKept()}: part of one frame whose length the decoder told; no search may resume inside it. */
    private static final byte LENGTH_TOLD = 1;

    /**
     * {@link RouteHost#framingKept()}: the rest of a read, not handed out while the connection's own
     * queue was over its limit: whole frames maybe, not searched yet; handed out before anything read later.
     */
    private static final byte HELD = 2;

    /**
     * {@link RouteHost#framingKept()}: no bytes held; the rest of a frame the decoder refused and asked to
     * skip is still to come ({@link RouteHost#framingSkip()} bytes), and is discarded as it arrives.
     */
    private static final byte SKIPPING = 3;

    /**
     * {@link RouteHost#framingKept()}: part of one frame that its decoder announced reaches a length
     * ({@link RouteHost#framingLeast()}) over what is held: it is asked again only once that much is held.
     */
    private static final byte AT_LEAST = 4;

    /** The coarse clock's unit: 2^20 ns. */
    private static final int CLOCK_SHIFT = 20;

    /** Room an unfinished frame of unknown length starts with. */
    private static final int FIRST_ROOM = 512;

    /** The buffers lent to encode one frame, or to gather the replies to one read's frames: frames up to this size. */
    private static final int ENCODE_ROOM = 64 * 1024;

    /** The route's terminal, which calls the handler. */
    private final HandlerCalls handler;

    /** Where a refused frame or a failure to frame is logged and counted. */
    private final ListenerState reports;

    /** Whether replies are gathered: on the workers only (a call on a handler executor may block). */
    private final boolean gathers;

    private final FrameDecoder decoder;

    private final FrameEncoder encoder;

    private final int maxFrameSize;

    /** The most bytes the unfinished frames of the route's connections hold together; 0 for no limit. */
    private final long maxUnfinished;

    /** How long a frame may take from its first byte to its last, in units of the coarse clock ({@link #coarseNow}); 0 for no limit. */
    private final int frameTimeoutUnits;

    /** The frame timeout as configured, for the log. */
    private final @Nullable Duration frameTimeout;

    /** Bytes the unfinished frames (and held reads) of the route's connections hold now: their buffers' capacities. */
    private final AtomicLong unfinished = new AtomicLong();

    /**
     * Direct, so that the socket takes the framed bytes without another copy; lent for one write or
     * one read's replies, so that a connection keeps none.
     */
    private final LendingPool<ByteBuffer> encodeBuffers = new LendingPool<>(() -> ByteBuffer.allocateDirect(ENCODE_ROOM), 16);

    /**
     * @param framing the listener's or client's framing
     * @param handler the route's terminal
     * @param reports where failures are logged and counted
     * @param gathers whether the handler runs on the workers, so that replies are gathered
     */
    Framer(Framing framing, HandlerCalls handler, ListenerState reports, boolean gathers) {
        this.handler = handler;
        this.reports = reports;
        this.gathers = gathers;
        this.decoder = framing.decoder();
        this.encoder = framing.encoder();
        this.maxFrameSize = framing.maxFrameSize();
        this.maxUnfinished = framing.maxUnfinishedBytes();
        this.frameTimeout = framing.frameTimeout();
        // Rounded up: a frame is never closed before its time (a coarse reading may be up to a unit late).
        this.frameTimeoutUnits = (this.frameTimeout != null)
                ? (int) Math.min(Integer.MAX_VALUE / 4, (this.frameTimeout.toNanos() >>> CLOCK_SHIFT) + 1) : 0;
    }

    /** @return bytes of the direct buffers made to encode writes into, lent now or idle: at most 16 of 64 KiB */
    long pooledBufferBytes() {
        return (long) this.encodeBuffers.made() * ENCODE_ROOM;
    }

    /** @return the coarse clock of unfinished frames' starts: {@link System#nanoTime()} in units of 2^20 ns (about a millisecond), never 0 */
    private static int coarseNow() {
        return coarse(System.nanoTime());
    }

    private static int coarse(long nanos) {
        int now = (int) (nanos >>> CLOCK_SHIFT);
        return (now != 0) ? now : 1;
    }

    /**
     * Keeps a buffer as the connection's unfinished frame (or held read), counted against the route's
     * budget by its capacity, what it replaces given back; a frame's clock starts when the first
     * buffer is kept for it.
     * @throws FramingException when the buffer would take the route's unfinished frames past their
     * budget: the connection then keeps nothing
     */
    private void hold(RouteHost connection, ByteBuffer next) throws FramingException {
        ByteBuffer old = connection.framingPartial();
        if (next == old) {
            return;
        }
        int growth = next.capacity() - ((old != null) ? old.capacity() : 0);
        long held = this.unfinished.addAndGet(growth);
        if (growth > 0 && this.maxUnfinished > 0 && held > this.maxUnfinished) {
            this.unfinished.addAndGet(-next.capacity());
            connection.framingPartial(null);
            connection.framingSince(0);
            throw new FramingException(Reason.UNFINISHED_LIMIT, this.reports.label() + ": an unfinished frame of " + next.position()
                    + " bytes would take the unfinished frames of its connections past their max-unfinished-bytes of "
                    + this.maxUnfinished + " bytes");
        }
        connection.framingPartial(next);
        if (old == null && this.frameTimeoutUnits > 0 && connection.framingSince() == 0) {
            connection.framingSince(coarseNow());
        }
    }

    /** The connection keeps no unfinished frame (nor held read) from now on: its buffer's bytes are given back to the budget. */
    private void release(RouteHost connection) {
        ByteBuffer old = connection.framingPartial();
        if (old != null) {
            connection.framingPartial(null);
            this.unfinished.addAndGet(-old.capacity());
        }
        connection.framingSince(0);
    }

    /**
     * @param connection a connection of the route; any thread, after it saw the connection unowned
     * @param nanos the current {@link System#nanoTime()}
     * @return how long, in milliseconds, the connection's unfinished frame has been coming (less the
     * time it did not read) when that is longer than the frame timeout; -1 when it has none, or it is
     * in time, or the bytes held wait for the connection's own queue (the server's pace, not the peer's)
     */
    long overdueMillis(RouteHost connection, long nanos) {
        int since = connection.framingSince();
        if (this.frameTimeoutUnits == 0 || since == 0 || connection.framingKept() == HELD) {
            return -1;
        }
        int elapsed = coarse(nanos) - since - connection.framingPaused();
        return (elapsed > this.frameTimeoutUnits) ? (((long) elapsed) << CLOCK_SHIFT) / 1_000_000 : -1;
    }

    /** @return the frame timeout, {@code null} for none */
    @Nullable Duration frameTimeout() {
        return this.frameTimeout;
    }

    /** @return bytes the unfinished frames of the route's connections hold now */
    long unfinishedBytes() {
        return this.unfinished.get();
    }

    /**
     * Passes the whole frames in the bytes to the handler, keeping an unfinished one for the next
     * bytes. Bytes that do not frame close the connection, counted and told to its handler first.
     * @param connection the connection, owned by the calling thread
     * @param data bytes from the socket side, from position to limit; consumed
     */
    void inbound(RouteHost connection, ByteBuffer data) {
        // Replies are gathered on the workers only: a call on a handler executor may block, and what it
        // wrote before blocking must not wait for it.
        connection.framingGathers(this.gathers);
        // The frames' calls are one run: timed together or call by call, the read's clock for the requests they send.
        long outer = RunClock.startRun(this.handler.summing(), this.handler.summingRequests());
        try {
            if (connection.tlsStarting()) {
                // TLS started and what follows the command still comes (a stage passes a read on in pieces, or the
                // start came between reads): it is the handshake's, with whatever the framing kept, never a frame.
                handBackToTls(connection, data);
                return;
            }
            if (connection.framingKept() == HELD && !releaseHeld(connection, data)) {
                return;
            }
            if (connection.framingKept() == SKIPPING && !skip(connection, data, connection.framingSkip())) {
                return;
            }
            if (!data.hasRemaining() || connection.framingPartial() != null && !completePartial(connection, data)) {
                return;
            }
            long unfinished = frames(connection, data);
            if (connection.tlsStarting()) {
                // A frame's call started TLS: what follows it is the handshake's, never a frame.
                connection.tlsRest(data);
                return;
            }
            if (data.hasRemaining() && delivering(connection)) {
                int held = data.remaining();
                hold(connection, keep(data, unfinished));
                if (holdsBack(connection)) {
                    connection.framingKept(HELD);
                }
                else {
                    kept(connection, unfinished, held);
                }
            }
        }
        catch (FramingException ex) {
            data.position(data.limit());
            release(connection);
            connection.framingKept(SEARCHED);
            forgetProgress(connection);
            this.reports.frameRejected(connection, "closing", ex);
            connection.rejected(ex);
        }
        finally {
            int summed = RunClock.summedCalls();
            int requests = RunClock.summedRequests(outer);
            long requestNanos = RunClock.summedRequestNanos(outer);
            long nanos = RunClock.endRun(outer);
            if (summed > 0) {
                this.handler.handledTogether(summed, nanos);
            }
            if (requests > 0) {
                this.handler.requestsEnded(requests, requestNanos);
            }
            connection.framingGathers(false);
            sendGathered(connection);
        }
    }

    /**
     * TLS started between reads: the bytes kept (an unfinished frame, frames held back) go to it as the
     * handshake's, and the rest of a refused frame is no longer skipped. With none kept, nothing is
     * handed: the next read goes to TLS as it comes (and, inside a release of held frames, their rest
     * follows the frame that started it).
     */
    void handBackKept(RouteHost connection) {
        if (connection.framingKept() == SKIPPING) {
            connection.framingSkip(0);
            connection.framingKept(SEARCHED);
        }
        if (connection.framingPartial() != null) {
            handBackToTls(connection, ByteBuffer.allocate(0));
        }
    }

    /** Hands the bytes the framing kept for the connection, then these, to its TLS as the handshake's; consumed. */
    private void handBackToTls(RouteHost connection, ByteBuffer data) {
        ByteBuffer kept = connection.framingPartial();
        if (kept == null) {
            // (Nor is the rest of a refused frame skipped any more: what comes is the handshake's.)
            connection.framingSkip(0);
            connection.framingKept(SEARCHED);
            connection.tlsRest(data);
            return;
        }
        ByteBuffer held = kept.flip();
        release(connection);
        connection.framingKept(SEARCHED);
        forgetProgress(connection);
        connection.tlsRest(joined(held, data));
    }

    /**
     * Hands out the frames of the connection's queue, if any, held back while its own queue was over
     * its limit (a read is not read any further then, and the connection reads nothing until they
     * are out); the owner, once the queue drained below the limit.
     */
    void releaseHeld(RouteHost connection) {
        if (connection.framingKept() == HELD && !holdsBack(connection)) {
            inbound(connection, ByteBuffer.allocate(0));
        }
    }

    /**
     * Hands out the frames held back, before the bytes at hand: until the queue is over its limit
     * again, when the bytes join those held.
     * @return whether the bytes at hand are framed next; false when they were held too (or dropped)
     */
    private boolean releaseHeld(RouteHost connection, ByteBuffer data) throws FramingException {
        ByteBuffer held = connection.framingPartial().flip();
        release(connection);
        connection.framingKept(SEARCHED);
        long unfinished = frames(connection, held);
        if (connection.tlsStarting()) {
            // A held frame's call started TLS: what followed it, held or read since, is the handshake's.
            connection.tlsRest((held.hasRemaining() || data.hasRemaining()) ? joined(held, data) : data);
            return false;
        }
        if (!held.hasRemaining()) {
            return true;
        }
        if (!delivering(connection)) {
            data.position(data.limit());
            return false;
        }
        held.compact();
        if (holdsBack(connection)) {
            if (held.remaining() < data.remaining()) {
                // At most the rest of the reads since the hold began: reading waits while the queue is over its limit.
                held = ByteBuffer.allocate(held.position() + data.remaining()).put(held.flip());
            }
            held.put(data);
            hold(connection, held);
            connection.framingKept(HELD);
            return false;
        }
        // What is left is one unfinished frame, searched through or with its length told, as if kept from a read.
        hold(connection, held);
        kept(connection, unfinished, held.position());
        return true;
    }

    /**
     * Records what the unfinished frame held is known to be, from the decoder's last answer on all of its bytes.
     * @param answer that answer: the frame's length, {@link FrameDecoder#MORE}, or a length announced with {@code atLeast}
     * @param held the bytes held
     */
    private static void kept(RouteHost connection, long answer, int held) {
        long least = FrameDecoder.leastLength(answer);
        if (answer > 0) {
            connection.framingKept(LENGTH_TOLD);
        }
        else if (least > held) {
            connection.framingKept(AT_LEAST);
            connection.framingLeast(least);
        }
        else {
            // The decoder looked at every byte held and still cannot tell: as good as a search that found no end.
            connection.framingKept(SEARCHED);
        }
    }

    /**
     * @return whether the frames left in a read wait: the connection's own queue is over its limit,
     * so that a peer pipelining requests it does not read the answers to gets no more answered (the
     * answers would pile up in the heap); reading waits too, until the queue drained
     */
    private static boolean holdsBack(RouteHost connection) {
        return connection.pausesForOwnWrites();
    }

    /**
     * Passes the frames that lie whole in the bytes, each as a view of them, until the connection's
     * own queue is over its limit.
     * @return the length of the unfinished frame left, when known, else {@link FrameDecoder#MORE}
     */
    private long frames(RouteHost connection, ByteBuffer in) throws FramingException {
        while (in.hasRemaining() && delivering(connection) && !holdsBack(connection)) {
            long length;
            try {
                length = frameLength(connection, in, 0);
            }
            catch (FramingException ex) {
                if (!ex.skips()) {
                    throw ex;
                }
                refused(connection, ex);
                if (!skip(connection, in, ex.skipLength())) {
                    return FrameDecoder.MORE;
                }
                continue;
            }
            if (length < 0) {
                // MORE, or a length announced with atLeast: the frame's end is not in these bytes.
                if (in.remaining() >= this.maxFrameSize) {
                    throw noEnd();
                }
                return length;
            }
            if (length > in.remaining()) {
                return length;
            }
            int start = in.position();
            int end = start + (int) length;
            int limit = in.limit();
            forgetProgress(connection);
            deliver(connection, in, start, end);
            in.limit(limit).position(end);
        }
        return FrameDecoder.MORE;
    }

    /**
     * Adds bytes to the connection's unfinished frame until it is whole, and passes it on.
     * @return whether bytes are left for {@link #frames}; false when all went into the unfinished frame
     */
    private boolean completePartial(RouteHost connection, ByteBuffer data) throws FramingException {
        ByteBuffer partial = connection.framingPartial();
        byte kept = connection.framingKept();
        // Where the decoder answered MORE, it saw every byte held so far and found no end in them: a search
        // may start after them. Where it told the frame's length, or a length the frame reaches, it searched
        // nothing: a decoder that honours the count would search from inside the frame's body. Asked again
        // from the start, it tells it again (a decoder that keeps its progress resumes).
        long length = FrameDecoder.MORE;
        int searched = (kept == SEARCHED) ? partial.position() : 0;
        // Until the frame holds the length announced, the decoder is not asked.
        long least = (kept == AT_LEAST) ? connection.framingLeast() : 0;
        if (least != 0) {
            connection.framingLeast(0);
        }
        while (true) {
            int held = partial.position();
            if (length == FrameDecoder.MORE && held >= least) {
                partial.flip();
                long answer;
                try {
                    answer = frameLength(connection, partial, searched);
                }
                catch (FramingException ex) {
                    if (!ex.skips()) {
                        throw ex;
                    }
                    // The refused frame starts with the bytes held: what the last copy took past its end goes
                    // back to the bytes at hand, or the rest of it is skipped there and in the reads to come.
                    release(connection);
                    connection.framingKept(SEARCHED);
                    refused(connection, ex);
                    long refused = ex.skipLength();
                    if (refused <= held) {
                        data.position(data.position() - (held - (int) refused));
                        return data.hasRemaining();
                    }
                    return skip(connection, data, refused - held);
                }
                partial.limit(partial.capacity()).position(held);
                if (answer > 0) {
                    length = answer;
                }
                else {
                    // A length announced past what is held waits for its bytes; a search that found no end
                    // resumes after the bytes it saw. After an announcement nothing is claimed searched.
                    long announced = FrameDecoder.leastLength(answer);
                    least = (announced > held) ? announced : 0;
                    searched = (announced > 0) ? 0 : held;
                }
            }
            if (length != FrameDecoder.MORE && length <= held) {
                // Whole: what the last copy took past its end goes back to the bytes at hand.
                data.position(data.position() - (held - (int) length));
                release(connection);
                connection.framingKept(SEARCHED);
                forgetProgress(connection);
                deliver(connection, partial, 0, (int) length);
                return data.hasRemaining();
            }
            if (!data.hasRemaining()) {
                hold(connection, partial);
                kept(connection, (length != FrameDecoder.MORE) ? length : (least > held) ? FrameDecoder.atLeast(least) : FrameDecoder.MORE,
                        held);
                return false;
            }
            long room = ((length != FrameDecoder.MORE) ? length : this.maxFrameSize) - held;
            if (room <= 0) {
                throw noEnd();
            }
            int take = (int) Math.min(room, data.remaining());
            // Copy what fits, growing (doubling, up to the frame's length or the limit) only once that is
            // full: the buffer follows the bytes that arrived, and where the frame's end is not known,
            // the bytes after a short frame are not copied only to be taken back.
            if (held == partial.capacity()) {
                partial = room(partial, held + 1, length);
            }
            take = Math.min(take, partial.capacity() - held);
            partial = room(partial, held + take, length);
            partial.put(held, data, data.position(), take).position(held + take);
            data.position(data.position() + take);
        }
    }

    /** @return the decoder's length of the frame at the buffer's position, checked against the limit */
    private long frameLength(RouteHost connection, ByteBuffer in, int searched) throws FramingException {
        long length;
        try {
            length = this.decoder.frameLength(in, searched, connection);
        }
        catch (FramingException ex) {
            throw ex.prefixed(this.reports.label() + ": ");
        }
        catch (RuntimeException ex) {
            // A decoder of the application's that failed on these bytes: refused like bytes that do not frame.
            throw new FramingException(Reason.DECODER_FAILED, this.reports.label() + ": the decoder " + this.decoder + " failed: " + ex, ex);
        }
        if (length == FrameDecoder.MORE) {
            return length;
        }
        long least = FrameDecoder.leastLength(length);
        if (least > this.maxFrameSize) {
            throw new FramingException(Reason.TOO_LARGE, this.reports.label() + ": a frame of at least " + least
                    + " bytes, over its max-frame-size of " + this.maxFrameSize + " bytes");
        }
        if (least > 0) {
            return length;
        }
        if (length < 1) {
            throw new FramingException(Reason.DECODER_FAILED, this.reports.label() + ": the decoder " + this.decoder
                    + " gave a frame length of " + length + " (a frame is at least one byte)");
        }
        if (length > this.maxFrameSize) {
            throw new FramingException(Reason.TOO_LARGE, this.reports.label() + ": a frame of " + length
                    + " bytes, over its max-frame-size of " + this.maxFrameSize + " bytes");
        }
        return length;
    }

    private FramingException noEnd() {
        return new FramingException(Reason.TOO_LARGE, this.reports.label() + ": no frame end (" + this.decoder + ") within "
                + this.maxFrameSize + " bytes, its max-frame-size");
    }

    /** Passes one frame's content to the handler: in[start, end) less the header and trailer. */
    private void deliver(RouteHost connection, ByteBuffer in, int start, int end) throws FramingException {
        in.limit(end).position(start);
        int header;
        int trailer;
        try {
            header = this.decoder.headerLength(in);
            trailer = this.decoder.trailerLength(in);
        }
        catch (RuntimeException ex) {
            throw new FramingException(Reason.DECODER_FAILED, this.reports.label() + ": the decoder " + this.decoder + " failed: " + ex, ex);
        }
        if (header < 0 || trailer < 0 || header + trailer > end - start) {
            throw new FramingException(Reason.DECODER_FAILED, this.reports.label() + ": the decoder " + this.decoder + " gave a header of "
                    + header + " and a trailer of " + trailer + " bytes to a frame of " + (end - start));
        }
        in.limit(end - trailer).position(start + header);
        this.handler.call(Callback.DATA, connection, in, null);
    }

    /**
     * @return a new buffer holding the unfinished frame's bytes, with room to grow into; never more
     * than the frame's length when it is known, as the bytes, not an announcement, make it grow
     */
    private ByteBuffer keep(ByteBuffer data, long length) {
        int held = data.remaining();
        ByteBuffer partial = ByteBuffer.allocate(firstRoom(held, length));
        partial.put(data);
        return partial;
    }

    private int firstRoom(int held, long length) {
        long most = (length > 0) ? length : this.maxFrameSize;
        return (int) Math.min(most, Math.max(FIRST_ROOM, 2L * held));
    }

    /** @return the unfinished frame's buffer with room for {@code needed} bytes, at most the longest frame */
    private ByteBuffer room(ByteBuffer partial, int needed, long length) {
        if (needed <= partial.capacity()) {
            return partial;
        }
        long most = (length > 0) ? length : this.maxFrameSize;
        int capacity = (int) Math.min(most, Math.max(needed, 2L * partial.capacity()));
        ByteBuffer grown = ByteBuffer.allocate(capacity);
        partial.flip();
        grown.put(partial);
        return grown;
    }

    /**
     * Whether frames still go to the handler: not once the connection is aborted, or closing other than
     * for a graceful stop, nor after a frame whose call started TLS.
     */
    private static boolean delivering(RouteHost connection) {
        return connection.takesInput() && !connection.tlsStarting();
    }

    /** @return the bytes of both, in order, in one buffer (consumed) */
    private static ByteBuffer joined(ByteBuffer first, ByteBuffer second) {
        ByteBuffer both = ByteBuffer.allocate(first.remaining() + second.remaining()).put(first).put(second);
        return both.flip();
    }

    /** @return the framed replies gathered for the connection and not sent yet; its owner, else 0 */
    int gatheredBytes(RouteHost connection) {
        ByteBuffer gathered = connection.framingReplies();
        return (gathered != null && connection.isOwnedByCurrentThread()) ? gathered.position() : 0;
    }

    /** @return whether what handlers write goes out as it is, unencoded */
    boolean writesAsIs() {
        return this.encoder == FrameEncoder.AS_IS;
    }

    /** The connection is finished: its unfinished frame is dropped (no replies are gathered outside a read's frames). */
    void drop(RouteHost connection) {
        release(connection);
        connection.framingKept(SEARCHED);
        forgetProgress(connection);
    }

    /**
     * A frame the decoder refused and asked to skip: counted, and the handler's onError hears of it in
     * the frame's turn (and may answer); the connection goes on.
     */
    private void refused(RouteHost connection, FramingException refusal) {
        forgetProgress(connection);
        this.reports.frameRejected(connection, "skipping the frame on", refusal);
        this.handler.call(Callback.ERROR, connection, null, refusal);
    }

    /** A frame starts: what the decoder saved of the one before is forgotten (nothing is made for a connection that never saved any). */
    private static void forgetProgress(RouteHost connection) {
        if (connection.saved() != 0) {
            connection.save(0);
        }
    }

    /**
     * Discards bytes of a refused frame: those at hand, and, when they end before it, the rest as it arrives.
     * @param count how many bytes of it are left to discard
     * @return whether bytes are left at hand after it; false when the frame goes on in the reads to come
     */
    private static boolean skip(RouteHost connection, ByteBuffer in, long count) {
        if (count <= in.remaining()) {
            in.position(in.position() + (int) count);
            connection.framingKept(SEARCHED);
            connection.framingSkip(0);
            return in.hasRemaining();
        }
        connection.framingSkip(count - in.remaining());
        connection.framingKept(SKIPPING);
        in.position(in.limit());
        return false;
    }

    /**
     * Frames what the handler writes and passes it towards the socket.
     * @param connection the connection, owned by the calling thread
     * @param content one frame's content, from position to limit; consumed
     */
    void outbound(RouteHost connection, ByteBuffer content) {
        int length = content.remaining();
        long framed = (long) length + this.encoder.overhead(length);
        if (connection.framingGathers() && framed <= ENCODE_ROOM && gather(connection, content, (int) framed)) {
            return;
        }
        // Replies gathered so far go first.
        sendGathered(connection);
        if (this.encoder == FrameEncoder.AS_IS) {
            connection.toSocket(content, false);
            return;
        }
        ByteBuffer lent = (framed <= ENCODE_ROOM) ? this.encodeBuffers.borrow() : null;
        ByteBuffer out = (lent != null) ? lent.clear() : ByteBuffer.allocate((int) Math.min(framed, Integer.MAX_VALUE));
        try {
            if (encode(connection, content, out)) {
                out.flip();
                connection.toSocket(out, lent == null);
            }
        }
        finally {
            if (lent != null) {
                this.encodeBuffers.giveBack(lent);
            }
        }
    }

    /**
     * Adds one framed reply to those gathered while a read's frames are handed out: the replies to a
     * pipeline of requests leave in one send, when the last frame was handled.
     * @return false when there is no room to gather in (all buffers lent): the caller sends it itself
     */
    private boolean gather(RouteHost connection, ByteBuffer content, int framed) {
        ByteBuffer gathered = connection.framingReplies();
        if (gathered != null && framed > gathered.remaining()) {
            sendGathered(connection);
            gathered = null;
        }
        if (gathered == null) {
            gathered = this.encodeBuffers.borrow();
            if (gathered == null) {
                return false;
            }
            connection.framingReplies(gathered.clear());
        }
        encode(connection, content, gathered);
        return true;
    }

    /**
     * Sends the replies gathered for the connection, if any, and gives their buffer back: once a read's
     * frames are out, or before TLS starts; the owner.
     */
    void sendGathered(RouteHost connection) {
        ByteBuffer gathered = connection.framingReplies();
        if (gathered == null) {
            return;
        }
        connection.framingReplies(null);
        try {
            if (gathered.position() > 0 && !connection.isAborting()) {
                gathered.flip();
                connection.toSocket(gathered, false);
            }
        }
        finally {
            this.encodeBuffers.giveBack(gathered);
        }
    }

    /**
     * Frames content into a buffer with room for it; content the handler wrote that cannot be framed aborts the connection.
     * @return whether it was framed (else the buffer is as it was)
     */
    private boolean encode(RouteHost connection, ByteBuffer content, ByteBuffer out) {
        int start = out.position();
        int length = content.remaining();
        try {
            this.encoder.encode(content, out);
            return true;
        }
        catch (FramingException | RuntimeException ex) {
            out.position(start);
            content.position(content.limit());
            FramingException failure = new FramingException(Reason.UNENCODABLE, this.reports.label() + " could not frame "
                    + length + " bytes written: " + ex.getMessage(), ex);
            // The handler wrote what its framing cannot carry: its error, not the peer's.
            this.reports.handlerFailed(connection, "aborting the connection", failure);
            connection.failed(failure);
            return false;
        }
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The way out of one TCP connection: bytes sent at once while the socket takes them, a
 * {@link WriteQueue} (made only while something is pending) for what it does not, back-pressure
 * once the queue is too long, and the output's end (the FIN); the writes and shutdowns other threads
 * ask for wait in its {@link HandedWrites} part until the owner takes them. Fields without
 * {@code volatile} belong to the thread that owns the connection.
 */
final class WritePath extends HandedWrites {

    /**
     * Sends refused in a row for want of system buffers (Windows' WSAENOBUFS, a transient shortage
     * on a non-blocking send) that are retried, each after twice the pause of the last, from 2 ms;
     * the next one fails the connection.
     */
    static final int NO_BUFFER_RETRIES = 8;

    /** {@link #shutdown}: no FIN asked for. */
    private static final byte OUTPUT_OPEN = 0;

    /** {@link #shutdown}: a FIN asked for, sent once nothing is queued; later writes are dropped. */
    private static final byte FIN_ASKED = 1;

    /** {@link #shutdown}: the FIN sent. */
    private static final byte FIN_SENT = 2;

    private WriteQueue queue;

    /** Whether something was queued since the socket last took everything: onWritable is due when it does. */
    private boolean blocked;

    /** Where the output's end stands: {@link #OUTPUT_OPEN}, {@link #FIN_ASKED} or {@link #FIN_SENT}; the owner's. */
    private byte shutdown;

    WritePath(ConnectionTurn connection) {
        super(connection);
    }

    /**
     * A handler's write, from any thread: on the owning thread the bytes go outbound at once,
     * from another they are copied and wait for the owner. Dropped once the connection is aborted, or
     * closing because it was asked to; a graceful stop's close, which first answers what arrived, still
     * takes them.
     * @param data the bytes; consumed
     */
    void write(ByteBuffer data) {
        if (!data.hasRemaining() && !this.connection.listener.frames()) {
            // Nothing to send; with framing an empty write is an empty frame, which has bytes.
            return;
        }
        if (this.connection.dropsWrites()) {
            data.position(data.limit());
            return;
        }
        if (this.connection.isOwnedByCurrentThread()) {
            // Writes other threads made before this one go first.
            takeRequests();
            if (this.shutdown != OUTPUT_OPEN) {
                dropLate(data);
                return;
            }
            this.connection.outbound(data, false);
            return;
        }
        handOver(data);
    }

    /**
     * @return true once, when other threads' writes made the connection unwritable and all of it is
     * sent now: its onWritable is owed; the owner
     */
    boolean drainedSinceOwed() {
        if (!this.drainOwed || this.blocked || pendingBytes() > 0) {
            return false;
        }
        this.drainOwed = false;
        return true;
    }

    /**
     * A write made after the FIN was asked for has no way out: dropped, and said in the log (at most
     * once a second); the connection itself goes on, reading what the peer still sends.
     */
    private void dropLate(ByteBuffer data) {
        int bytes = data.remaining();
        data.position(data.limit());
        this.connection.listener.writeAfterShutdown(this.connection, bytes);
    }

    /** Asks for a FIN once queued bytes are sent, from any thread. */
    void shutdownOutput() {
        if (this.connection.isOwnedByCurrentThread()) {
            // Writes other threads made before the shutdown was asked for go before the FIN.
            takeRequests();
            askFin();
            return;
        }
        handOverShutdown();
    }

    /**
     * Sends what the socket takes now and queues the rest; owner only.
     * @param data the bytes; consumed
     * @param owned whether the queue may keep the buffer itself (a copy made for a request)
     */
    @Override
    void send(ByteBuffer data, boolean owned) {
        if (this.round == CORKED) {
            ByteBuffer corked = this.connection.extras().corked;
            if (this.queue == null && data.remaining() <= corked.remaining()) {
                corked.put(data);
                return;
            }
            // Too large to gather, or queued behind others: what was gathered goes first, and the round gathers no more.
            sendCorked(TAKING);
        }
        if (this.queue == null) {
            // Until the socket takes all or refuses for want of room: a send it took only part of does not
            // say the room ran out, and where edges rise only after a refusal was seen (Windows), the
            // room freed later would raise none.
            while (true) {
                int sent;
                try {
                    // (Taken, or refused for want of room, which OUT then reports: no shortage of buffers to count.)
                    sent = this.connection.sockets.send(this.connection.handle, data);
                }
                catch (NativeIoException ex) {
                    WriteQueue refused = new WriteQueue();
                    if (!retriesLater(refused, ex)) {
                        data.position(data.limit());
                        this.connection.failed(ex);
                        return;
                    }
                    // The bytes stay, with the count of refusals.
                    this.queue = refused;
                    break;
                }
                if (sent <= 0) {
                    // (WOULD_BLOCK; or nothing taken, which no socket answers to a send of bytes, taken as no room.)
                    break;
                }
                this.connection.observer.sent(sent);
                this.connection.touch();
                if (!data.hasRemaining()) {
                    return;
                }
            }
            if (this.queue == null) {
                this.queue = new WriteQueue();
            }
        }
        long queued = data.remaining();
        if (owned) {
            this.queue.addOwned(data);
        }
        else {
            this.queue.add(data);
        }
        this.blocked = true;
        PENDING_BYTES.getAndAdd(this, queued);
    }

    /**
     * Sends queued bytes while the socket takes them; owner only.
     * @return true when the queue drained after a write had to wait: the handler's onWritable is due
     */
    boolean flush() {
        WriteQueue pending = this.queue;
        if (pending == null || pending.noBuffers > 0 && System.nanoTime() - pending.retryAt < 0) {
            // (A turn that comes before a refused send's retry is due leaves the bytes queued: the
            // pause is what lets the shortage pass, and only the retry counts.)
            return false;
        }
        long queued = pending.bytes();
        ByteBuffer head;
        while ((head = pending.head()) != null) {
            int sent;
            try {
                sent = this.connection.sockets.send(this.connection.handle, head);
            }
            catch (NativeIoException ex) {
                if (retriesLater(pending, ex)) {
                    break;
                }
                this.connection.failed(ex);
                return false;
            }
            // Taken, or refused for want of room, which OUT reports: not a shortage of buffers.
            pending.noBuffers = 0;
            if (sent == NativeSockets.WOULD_BLOCK) {
                break;
            }
            this.connection.observer.sent(sent);
            this.connection.touch();
            pending.sent(sent);
        }
        if (pending.bytes() != queued) {
            PENDING_BYTES.getAndAdd(this, pending.bytes() - queued);
        }
        if (!pending.isEmpty()) {
            return false;
        }
        this.queue = null;
        boolean due = this.blocked;
        this.blocked = false;
        return due;
    }

    @Override
    void takeWrite(ByteBuffer data, boolean owned) {
        if (this.shutdown != OUTPUT_OPEN) {
            dropLate(data);
        }
        else {
            this.connection.outbound(data, owned);
        }
    }

    /** A FIN is asked for: sent once nothing is queued, unless it was sent already; owner only. */
    @Override
    void askFin() {
        if (this.shutdown == OUTPUT_OPEN) {
            this.shutdown = FIN_ASKED;
        }
    }

    /** Sends the FIN asked for, once nothing is queued, unless the connection is being aborted; owner only. */
    void shutdownIfDue() {
        if (this.shutdown == FIN_ASKED) {
            // Writes other threads made before the shutdown was asked for go before the FIN.
            takeRequests();
        }
        if (this.shutdown == FIN_ASKED && this.queue == null && !this.connection.isAborting()) {
            // The stages' last words (a TLS close_notify) go before the FIN; if the socket does not
            // take them at once, the FIN waits until it did.
            this.connection.endOutput();
            if (this.queue != null || this.connection.isAborting()) {
                return;
            }
            this.shutdown = FIN_SENT;
            try {
                this.connection.sockets.shutdown(this.connection.handle, false, true);
            }
            catch (NativeIoException ex) {
                this.connection.failed(ex);
            }
        }
    }

    /**
     * Sends the FIN now, nothing being queued (a graceful stop's close that lingers); later writes are
     * dropped, as after {@link #shutdownOutput()}; owner only.
     */
    void shutdownNow() {
        if (this.shutdown != FIN_SENT) {
            this.shutdown = FIN_SENT;
            try {
                this.connection.sockets.shutdown(this.connection.handle, false, true);
            }
            catch (NativeIoException ex) {
                this.connection.failed(ex);
            }
        }
    }

    /** @return whether the FIN was sent; owner only */
    boolean isShut() {
        return this.shutdown == FIN_SENT;
    }

    /** @return whether bytes wait for the socket; owner only */
    @Override
    boolean isPending() {
        return this.queue != null;
    }

    /**
     * @return whether bytes wait for room in the socket, which its OUT readiness reports; not while
     * a send refused for want of system buffers waits for its retry (readiness would not change)
     */
    boolean waitsForRoom() {
        return this.queue != null && this.queue.noBuffers == 0;
    }

    /**
     * A send was refused: a want of system buffers is back-pressure, retried after a pause (at most
     * {@link #NO_BUFFER_RETRIES} times in a row; turns before the pause ends send nothing); anything
     * else fails the connection.
     * @return whether the send is retried later (the bytes stay queued)
     */
    private boolean retriesLater(WriteQueue pending, NativeIoException refusal) {
        if (refusal.error() != NativeError.NO_MEMORY || pending.noBuffers >= NO_BUFFER_RETRIES) {
            return false;
        }
        pending.noBuffers++;
        long pause = 1L << pending.noBuffers;
        pending.retryAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause);
        if (this.connection.listener.schedule(this.connection::requestRun, pause)) {
            return true;
        }
        // No timer (an embedded connection), or it is gone with the server's stop: the retry comes at once.
        pending.retryAt = System.nanoTime();
        // The owner asks: its own turn goes round again (a run request of the owner's would be spent already).
        this.connection.requestTurn();
        return true;
    }

    /** @return whether so many bytes wait that reading pauses until they drain; owner only */
    boolean isOverLimit(long maxPendingBytes) {
        return this.queue != null && this.queue.bytes() > maxPendingBytes;
    }

    /** Drops everything once the connection is finished. */
    void release() {
        this.queue = null;
        releaseHandedWrites();
    }
}

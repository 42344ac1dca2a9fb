package dev.sockstate.server.engine;

import dev.sockstate.port.LendingPool;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.PendingWriteLimitException;
import dev.sockstate.server.engine.turn.Handoff;
import dev.sockstate.server.engine.turn.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The way out of one TCP connection: bytes sent at once while the socket takes them, a
 * {@link WriteQueue} (made only while something is pending) for what it does not, back-pressure
 * once the queue is too long, and the output's end (the FIN). What other threads hand over to the
 * owner to write waits here too: copies of their writes, the bundles of its worker's writes from
 * other sockets' turns ({@link WriteBundle}), and output shutdowns, which wait as {@link Handoff}s
 * until the owner takes them (nothing is held while none waits), in order, several of them gathered
 * in a lent buffer for one send; with the count of the bytes waiting, which any thread reads for
 * back-pressure. Fields without {@code volatile} belong to the thread that owns the connection.
 */
final class WritePath {


    /** An output shutdown handed over, among the writes. */
    static final Object SHUTDOWN_OUTPUT = new Object();

    /** A request: start TLS ({@link dev.sockstate.server.Connection#startTls()}), handed over by another thread. */
    static final Object START_TLS = new Object();

    /** The most bytes the writes taken together gather for one send. */
    static final int CORK_ROOM = 64 * 1024;

    /**
     * Direct buffers lent while the owner takes several writes other threads asked for, which gather
     * there and leave in one send: a proxy's requests, or replies completed on other threads, cost one
     * system call a batch, not one each. No connection keeps one.
     */
    private static final LendingPool<ByteBuffer> CORKS = new LendingPool<>(() -> ByteBuffer.allocateDirect(CORK_ROOM), 64);

    /** {@link #round}: the owner is not taking other threads' requests. */
    static final byte NOT_TAKING = 0;

    /** {@link #round}: the owner is taking other threads' requests, each sent as it is taken. */
    static final byte TAKING = 1;

    /**
     * {@link #round}: the owner is taking other threads' requests, which gather in a buffer lent for
     * the round (the connection's {@link ConnectionExtras#corked}) and leave in one send.
     */
    static final byte CORKED = 2;

    /** The connection whose way out this is. */
    final TcpConnection connection;

    /** Whether the owner is taking other threads' requests now: {@link #NOT_TAKING}, {@link #TAKING} or {@link #CORKED}; the owner's. */
    byte round;

    /** Requests taken from the stack but not handled yet, oldest first: they go before any newer one. */
    private @Nullable Handoff<Object> kept;

    /**
     * The bytes waiting, in one count that any thread reads at once: those queued for the socket (the
     * owner adds them as it queues them and takes them off as the socket takes them) and those of the
     * writes other threads asked for that the owner has not taken yet (each writer adds its own, the
     * owner takes them off as it takes the write). Changed by atomic additions only, but for the reset
     * once the connection is finished.
     */
    private volatile long pendingBytes;

    /** Whether other threads' writes took the connection over its limit, so onWritable is owed when they are sent. */
    volatile boolean drainOwed;

    /** Writes (copies), bundles and shutdowns other threads asked for, newest first: {@link Handoff}s; {@code null} when none waits. */
    @SuppressWarnings("unused")
    private volatile @Nullable Handoff<Object> requests;

    private static final VarHandle REQUESTS;

    /** {@link #pendingBytes}, which the owner changes too as it queues bytes and the socket takes them. */
    static final VarHandle PENDING_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            REQUESTS = lookup.findVarHandle(WritePath.class, "requests", Handoff.class);
            PENDING_BYTES = lookup.findVarHandle(WritePath.class, "pendingBytes", long.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }


    /**
     * Hands a write over to the owner, from another thread: into the connection's bundle on its only
     * worker, else as a copy of its own.
     * @param data the bytes; consumed
     */
    final void handOver(ByteBuffer data) {
        if (this.connection.onItsOnlyWorker() && bundle(data)) {
            return;
        }
        long limit = this.connection.profile.abortPendingWriteBytes();
        if (limit > 0 && pendingBytes() + data.remaining() > limit) {
            // Not copied: the connection is aborted (the owner closes it), and what it queued dropped.
            long bytes = pendingBytes() + data.remaining();
            data.position(data.limit());
            this.connection.closeFailed(overLimit(bytes, limit));
            return;
        }
        ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data);
        copy.flip();
        PENDING_BYTES.getAndAdd(this, (long) copy.remaining());
        if (pendingBytes() > this.connection.profile.maxPendingWriteBytes()) {
            // Seen over the limit (isWritable false): onWritable is owed once it is all sent, socket blocked or not.
            this.drainOwed = true;
        }
        Handoff.push(REQUESTS, this, copy);
        this.connection.requestRun();
    }

    /** Hands a start of TLS over to the owner, from another thread: after the writes handed over before it. */
    final void handOverStartTls() {
        ConnectionExtras extras = this.connection.extrasIfMade();
        WriteBundle writes = (extras != null) ? extras.bundle : null;
        if (writes != null && this.connection.onItsOnlyWorker()) {
            // The start goes after the bundle; this worker's later writes start another, after it.
            writes.close();
        }
        Handoff.push(REQUESTS, this, START_TLS);
        this.connection.requestRun();
    }

    /** Hands an output shutdown over to the owner, from another thread: after the writes handed over before it. */
    final void handOverShutdown() {
        ConnectionExtras extras = this.connection.extrasIfMade();
        WriteBundle writes = (extras != null) ? extras.bundle : null;
        if (writes != null && this.connection.onItsOnlyWorker()) {
            // The FIN goes after the bundle, and so would any later write of this worker's.
            writes.close();
        }
        Handoff.push(REQUESTS, this, SHUTDOWN_OUTPUT);
        this.connection.requestRun();
    }

    /**
     * Adds a write to the connection's bundle, starting one (handed over, and the run asked for) when none waits.
     * @return false when it went in none: no bundle was left to lend, or it did not fit (nor will any write
     * until the run took the bundle, so that none overtakes it)
     */
    private boolean bundle(ByteBuffer data) {
        ConnectionExtras extras = this.connection.extras();
        WriteBundle writes = extras.bundle;
        boolean started = false;
        if (writes == null) {
            writes = WriteBundle.borrow(this.connection.writesPassAsIs());
            if (writes == null) {
                return false;
            }
            extras.bundle = writes;
            Handoff.pushNode(REQUESTS, this, writes.node);
            started = true;
        }
        int bytes = data.remaining();
        if (!writes.add(data)) {
            return false;
        }
        long bundled = extras.bundledBytes + bytes;
        ConnectionExtras.BUNDLED_BYTES.setRelease(extras, bundled);
        if (bundled + this.pendingBytes > this.connection.profile.maxPendingWriteBytes()) {
            this.drainOwed = true;
        }
        if (started) {
            // The bundle's run, asked for once: until it takes the bundle, this worker's writes join it.
            this.connection.requestRun();
        }
        return true;
    }

    /** @return whether the bytes waiting, queued or asked for by other threads, are within the limit; any thread */
    boolean isWritable() {
        return pendingBytes() <= this.connection.profile.maxPendingWriteBytes();
    }

    /**
     * Takes the writes and shutdowns other threads asked for, all of them, in order; owner only.
     * @return whether there were any
     */
    boolean takeRequests() {
        return takeRequests(Integer.MAX_VALUE);
    }

    /**
     * Takes the writes and shutdowns other threads asked for, in order, at most {@code most} of them:
     * the rest stay first in line, and the owner's turn goes round again for them (counted against
     * its budget), so that a thread that keeps writing cannot keep the owner here; owner only.
     * @param most how many to take now
     * @return whether there were any
     */
    boolean takeRequests(int most) {
        if (this.round != NOT_TAKING || this.kept == null && !Handoff.waits(REQUESTS, this)) {
            // (A write made while passing a request outbound, by a stage, comes after that request.)
            return false;
        }
        this.round = TAKING;
        try {
            Handoff<Object> request = this.kept;
            this.kept = null;
            for (int taken = 0; ; taken++) {
                if (request == null && (request = Handoff.takeAll(REQUESTS, this)) == null) {
                    break;
                }
                if (taken == most) {
                    this.kept = request;
                    this.connection.requestTurn();
                    break;
                }
                if ((request.next != null || request.item instanceof WriteBundle writes && writes.count() > 1 && !writes.isRaw())
                        && this.round == TAKING && !isPending()) {
                    // Several writes wait: they leave in one send, not one each (while the pool has a buffer to lend).
                    ByteBuffer cork = CORKS.borrow();
                    if (cork != null) {
                        this.connection.extras().corked = cork;
                        this.round = CORKED;
                    }
                }
                // (The next one read first: a bundle taken is lent again at once, and its node with it.)
                Handoff<Object> next = request.next;
                take(request.item);
                request = next;
            }
        }
        finally {
            sendCorked(NOT_TAKING);
        }
        return true;
    }

    /**
     * Sends what the writes taken together gathered, if they gathered, and gives the buffer back; owner only.
     * @param next what the round is from the send on: {@link #TAKING} (it goes on without gathering) or
     * {@link #NOT_TAKING} (it ended)
     */
    final void sendCorked(byte next) {
        boolean gathers = this.round == CORKED;
        this.round = next;
        if (!gathers) {
            return;
        }
        ConnectionExtras extras = this.connection.extras();
        ByteBuffer gathered = extras.corked;
        extras.corked = null;
        try {
            if (gathered.position() > 0) {
                gathered.flip();
                send(gathered, false);
            }
        }
        finally {
            CORKS.giveBack(gathered.clear());
        }
    }

    private void take(Object request) {
        if (request == SHUTDOWN_OUTPUT) {
            askFin();
            return;
        }
        if (request == START_TLS) {
            startTls();
            return;
        }
        if (request instanceof WriteBundle writes) {
            takeBundle(writes);
            return;
        }
        ByteBuffer data = (ByteBuffer) request;
        long bytes = data.remaining();
        takeWrite(data, true);
        // (Counted until sent or queued; bytes gathered for one send are counted nowhere until it.)
        PENDING_BYTES.getAndAdd(this, -bytes);
    }

    /** Starts TLS as another thread asked; asked again once started, the connection fails, its handler told why. */
    private void startTls() {
        if (this.connection.isClosing()) {
            return;
        }
        try {
            this.connection.startTlsNow();
        }
        catch (IllegalStateException ex) {
            this.connection.failed(ex);
        }
    }

    /**
     * Takes the bundle's writes, each as a write of its own; from now on, the worker's writes start
     * another. Taken by the worker that made it: only the port's worker bundles, and only once it has
     * had a turn of the connection (an accepted connection is opened by the accepting worker), after
     * which it alone runs the connection's turns.
     */
    private void takeBundle(WriteBundle writes) {
        assert this.connection.onItsOnlyWorker() : "a bundle of " + this.connection + " taken by " + Thread.currentThread().getName()
                + ", not by the only worker of its port";
        ConnectionExtras extras = this.connection.extras();
        if (extras.bundle == writes) {
            extras.bundle = null;
        }
        ByteBuffer records = writes.read();
        int limit = records.limit();
        try {
            if (writes.isRaw()) {
                takeWrite(records, false);
                return;
            }
            while (records.position() < limit) {
                int end = records.getInt() + records.position();
                records.limit(end);
                takeWrite(records, false);
                records.limit(limit).position(end);
            }
        }
        finally {
            ConnectionExtras.BUNDLED_BYTES.setRelease(extras, 0L);
            writes.giveBack();
        }
    }

    /** @return whether other threads handed writes or a shutdown over that the owner has not taken yet; any thread */
    boolean hasRequests() {
        return this.kept != null || Handoff.waits(REQUESTS, this);
    }

    /** @return the bytes waiting, queued or asked for by other threads; any thread */
    long pendingBytes() {
        ConnectionExtras extras = this.connection.extrasIfMade();
        return this.pendingBytes + ((extras != null) ? extras.bundledBytes : 0);
    }

    /** Drops what was handed over and not taken, once the connection is finished. */
    final void releaseHandedWrites() {
        this.kept = null;
        Handoff.takeAll(REQUESTS, this);
        ConnectionExtras extras = this.connection.extrasIfMade();
        if (extras != null && extras.bundle != null) {
            WriteBundle writes = extras.bundle;
            extras.bundle = null;
            extras.bundledBytes = 0;
            if (this.connection.onItsOnlyWorker()) {
                writes.giveBack();
            }
            else {
                // On any other thread, its worker may be adding to it still: not given back, but not counted as lent.
                writes.discard();
            }
        }
        this.pendingBytes = 0;
    }
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

    private @Nullable WriteQueue queue;

    /** Whether something was queued since the socket last took everything: onWritable is due when it does. */
    private boolean blocked;

    /** Where the output's end stands: {@link #OUTPUT_OPEN}, {@link #FIN_ASKED} or {@link #FIN_SENT}; the owner's. */
    private byte shutdown;

    WritePath(TcpConnection connection) {
        this.connection = connection;
    
    }

    /**
     * A handler's write, from any thread: on the owning thread the bytes go outbound at once,
     * from another they are copied and wait for the owner. Dropped once the connection is aborted, or
     * closing because it was asked to; a graceful stop's close, which first answers what arrived, still
     * takes them.
     * @param data the bytes; consumed
     */
    void write(ByteBuffer data) {
        if (!data.hasRemaining() && this.connection.profile.settings.connection().framing() == null) {
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
        this.connection.profile.state.writeAfterShutdown(this.connection, bytes);
    }

    /** Asks for a FIN once queued bytes are sent, from any thread. */
    void shutdownOutput() {
        if (this.connection.isOwnedByCurrentThread()) {
            // Writes other threads made before the shutdown was asked for go before the FIN.
            takeRequests();
    /** A shutdown taken from those handed over: the FIN is asked for; owner only. */
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
            boolean throttled = false;
            // Until the socket takes all or refuses for want of room: a send it took only part of does not
            // say the room ran out, and where edges rise only after a refusal was seen (Windows), the
            // room freed later would raise none.
            while (true) {
                int allowance = this.connection.writeAllowance();
                if (allowance == 0) {
                    throttled = true;
                    break;
                }
                int sent;
                try {
                    // (Taken, or refused for want of room, which OUT then reports: no shortage of buffers to count.)
                    sent = sendAllowed(data, allowance);
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
                this.queue.throttled = throttled;
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
        long limit = this.connection.profile.abortPendingWriteBytes();
        if (limit > 0 && pendingBytes() > limit) {
            // Reading paused long ago: writes that do not look at isWritable() would fill the heap.
            this.connection.failed(overLimit(pendingBytes(), limit));
        }
    }

    /** @return the failure of a connection whose queued writes passed the listener's abort limit */
    private PendingWriteLimitException overLimit(long bytes, long limit) {
        return new PendingWriteLimitException(this.connection + ": " + bytes + " bytes of writes queued, over the"
                + " abort-pending-write-bytes (abortPendingWriteBytes) of " + limit + " bytes; reading paused at"
                + " max-pending-write-bytes, so these writes did not wait for isWritable()", limit);
    }

    /**
     * Sends queued bytes while the socket takes them; owner only.
     * @return true when the queue drained after a write had to wait: the handler's onWritable is due
     */
    boolean flush() {
        this.connection.outputWoken();
        WriteQueue pending = this.queue;
        if (pending == null || pending.noBuffers > 0 && System.nanoTime() - pending.retryAt < 0) {
            // (A turn that comes before a refused send's retry is due leaves the bytes queued: the
            // pause is what lets the shortage pass, and only the retry counts.)
            return false;
        }
        long queued = pending.bytes();
        ByteBuffer head;
        while ((head = pending.head()) != null) {
            int allowance = this.connection.writeAllowance();
            pending.throttled = allowance == 0;
            if (pending.throttled) {
                break;
            }
            int sent;
            try {
                sent = sendAllowed(head, allowance);
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

    /**
     * Sends what the traffic shaping allows of the buffer, and takes what went from its share.
     * @param data the bytes; its position moves past what the socket took, its limit stays
     * @param allowance what the shaping allows now, positive ({@link Integer#MAX_VALUE} when not shaped)
     * @return the bytes the socket took, or {@link NativeSockets#WOULD_BLOCK}
     * @throws NativeIoException when the send failed
     */
    private int sendAllowed(ByteBuffer data, int allowance) throws NativeIoException {
        int end = data.limit();
        int sent;
        try {
            if (allowance < data.remaining()) {
                data.limit(data.position() + allowance);
            }
            // The worker's own read buffer written back (an echo) goes out from its native memory as it is:
            // no memory lent for the call to find the buffer's address in.
            NativeBuffer readBuffer = Worker.readBufferOfThisThread();
            sent = (readBuffer != null && readBuffer.buffer() == data) ? this.connection.sockets.send(this.connection.handle, readBuffer)
                    : this.connection.sockets.send(this.connection.handle, data);
        }
        finally {
            data.limit(end);
        }
        if (sent > 0 && allowance != Integer.MAX_VALUE) {
            this.connection.writtenShaped(sent, allowance);
        }
        return sent;
    }

    /**
     * A write taken from those handed over: sent on, or dropped when the FIN was asked for before it; owner only.
     * @param data the bytes; consumed
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void takeWrite(ByteBuffer data, boolean owned) {
        if (this.shutdown != OUTPUT_OPEN) {
            dropLate(data);
        }
        else {
            this.connection.outbound(data, owned);
        }
    }

    /** A FIN is asked for: sent once nothing is queued, unless it was sent already; owner only. */
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
     * Sends the FIN now, nothing being queued (a close that waits for the peer's); later writes are dropped, as after
     * {@link #shutdownOutput()}; owner only.
     * @return whether the FIN is sent; false when the socket refused it (the peer reset it already)
     */
    boolean shutdownNow() {
        if (this.shutdown != FIN_SENT) {
            this.shutdown = FIN_SENT;
            try {
                this.connection.sockets.shutdown(this.connection.handle, false, true);
            }
            catch (NativeIoException ex) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the FIN was sent; owner only */
    boolean isShut() {
        return this.shutdown == FIN_SENT;
    }

    /** @return whether bytes wait for the socket; owner only */
    boolean isPending() {
        return this.queue != null;
    }

    /**
     * @return whether bytes wait for room in the socket, which its OUT readiness reports; not while
     * a send refused for want of system buffers waits for its retry (readiness would not change)
     */
    boolean waitsForRoom() {
        return this.queue != null && this.queue.noBuffers == 0 && !this.queue.throttled;
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
        if (this.connection.profile.schedule(this.connection::requestRun, pause)) {
            return true;
        }
        // No timer (an embedded connection), or it is gone with the server's stop: the retry comes at once.
        pending.retryAt = System.nanoTime();
        // The owner asks: its own turn goes round again (a run request of the owner's would be spent already).
        this.connection.requestTurn();
        return true;
    }

    /** @return whether a send refused for want of system buffers waits for a retry that is due now; owner only */
    boolean retryDue() {
        WriteQueue pending = this.queue;
        return pending != null && pending.noBuffers > 0 && System.nanoTime() - pending.retryAt >= 0;
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

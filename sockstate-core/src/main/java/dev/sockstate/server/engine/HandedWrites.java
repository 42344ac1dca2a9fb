package dev.sockstate.server.engine;

import dev.sockstate.port.LendingPool;
import dev.sockstate.server.engine.turn.Handoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * What other threads hand over to a TCP connection's owner to write: copies of their writes, the
 * bundles of its worker's writes from other sockets' turns ({@link WriteBundle}), and output
 * shutdowns, which wait as {@link Handoff}s until the owner takes them (nothing is held while none
 * waits), in order, several of them gathered in a lent buffer for one send; with the count of the
 * bytes waiting, which any thread reads for back-pressure. The part of {@link WritePath} that other
 * threads reach; fields without {@code volatile} belong to the thread that owns the connection.
 */
abstract class HandedWrites {

    /** An output shutdown handed over, among the writes. */
    static final Object SHUTDOWN_OUTPUT = new Object();

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
    final ConnectionTurn connection;

    /** Whether the owner is taking other threads' requests now: {@link #NOT_TAKING}, {@link #TAKING} or {@link #CORKED}; the owner's. */
    byte round;

    /** Requests taken from the stack but not handled yet, oldest first: they go before any newer one. */
    private Handoff<Object> kept;

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
    private volatile Handoff<Object> requests;

    private static final VarHandle REQUESTS;

    /** {@link #pendingBytes}, which the owner changes too as it queues bytes and the socket takes them. */
    static final VarHandle PENDING_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            REQUESTS = lookup.findVarHandle(HandedWrites.class, "requests", Handoff.class);
            PENDING_BYTES = lookup.findVarHandle(HandedWrites.class, "pendingBytes", long.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    HandedWrites(ConnectionTurn connection) {
        this.connection = connection;
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
        ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data);
        copy.flip();
        PENDING_BYTES.getAndAdd(this, (long) copy.remaining());
        if (pendingBytes() > this.connection.listener.maxPendingWriteBytes()) {
            // Seen over the limit (isWritable false): onWritable is owed once it is all sent, socket blocked or not.
            this.drainOwed = true;
        }
        Handoff.push(REQUESTS, this, copy);
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
        if (bundled + this.pendingBytes > this.connection.listener.maxPendingWriteBytes()) {
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
        return pendingBytes() <= this.connection.listener.maxPendingWriteBytes();
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
     * A write taken from those handed over: sent on, or dropped when the FIN was asked for before it; owner only.
     * @param data the bytes; consumed
     * @param owned whether the buffer is a copy the write queue may keep
     */
    abstract void takeWrite(ByteBuffer data, boolean owned);

    /** A shutdown taken from those handed over: the FIN is asked for; owner only. */
    abstract void askFin();

    /** Sends what the socket takes now and queues the rest; owner only. */
    abstract void send(ByteBuffer data, boolean owned);

    /** @return whether bytes wait for the socket; owner only */
    abstract boolean isPending();
}

package dev.sockstate.server.engine;

import dev.sockstate.port.LendingPool;
import dev.sockstate.server.engine.turn.Handoff;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Writes a worker made to a connection of its own port from another socket's turn (a proxy's
 * requests to its backend, the replies to its clients), bundled for that connection's next run: the
 * worker alone runs the connection's turns, so the bundle is its thread's without a lock, and it
 * costs a copy and no allocation where each write handed over on its own would cost a copy of its
 * own, a node and two atomic additions. Where each write still passes the connection's framing and
 * stages on its own, the writes keep their bounds, as records of a length then the bytes; where the
 * connection passes writes on as they are (no stages, no framing that encodes), the bundle is raw:
 * the bytes one after the other, sent in one go from the bundle's own (direct) buffer. Lent from a
 * pool for one run, as a cork is.
 */
final class WriteBundle {

    /** The bytes one bundle holds, records and lengths together. */
    static final int ROOM = 16 * 1024;

    /** The bundles lent at once at most, over the whole runtime; while all are lent, writes are handed over one by one. */
    private static final LendingPool<WriteBundle> POOL = new LendingPool<>(WriteBundle::new, 256);

    /**
     * The records (a length, an {@code int}, and that many bytes), or in a raw bundle the bytes alone,
     * in the order written; position at the end. Direct, so that a raw bundle is sent from it without a copy.
     */
    private final ByteBuffer records = ByteBuffer.allocateDirect(ROOM);

    /** Its node for the connection's handoffs, made once: a bundle is handed over, taken, and lent again. */
    final Handoff<Object> node = Handoff.node(this);

    /** How many writes it holds. */
    private int count;

    /** Whether it holds the writes' bytes alone, without their bounds; set as it is lent. */
    private boolean raw;

    /** Whether it takes no more records: one did not fit, or the FIN was asked for after it. */
    private boolean closed;

    private WriteBundle() {
    }

    /**
     * @param raw whether the writes' bounds may go: the connection passes each write on as it is
     * @return a bundle from the pool, empty; {@code null} while all are lent
     */
    static @Nullable WriteBundle borrow(boolean raw) {
        WriteBundle writes;
        try {
            writes = POOL.borrow();
        }
        catch (OutOfMemoryError ex) {
            // No direct memory left for another bundle (a tight MaxDirectMemorySize): the writes go one by one, each a copy.
            return null;
        }
        if (writes != null) {
            writes.raw = raw;
        }
        return writes;
    }

    /**
     * @param data a write's bytes, from position to limit: copied and consumed when it fits
     * @return whether it was added; once a write did not fit, none is, so that the ones that follow it go after it
     */
    boolean add(ByteBuffer data) {
        int bytes = data.remaining();
        if (this.closed || (this.raw ? 0 : Integer.BYTES) + bytes > this.records.remaining()) {
            this.closed = true;
            return false;
        }
        if (!this.raw) {
            this.records.putInt(bytes);
        }
        this.records.put(data);
        this.count++;
        return true;
    }

    /** It takes no more records: the FIN was asked for, which goes after it, handed over. */
    void close() {
        this.closed = true;
    }

    /** @return whether it takes no more records: a write or a shutdown by the worker now goes after it, handed over */
    boolean isClosed() {
        return this.closed;
    }

    /** @return how many writes it holds */
    int count() {
        return this.count;
    }

    /** @return whether it holds the writes' bytes alone, to be sent as one write */
    boolean isRaw() {
        return this.raw;
    }

    /**
     * Readies the records to be read from the start.
     * @return the buffer that holds them, from position to limit
     */
    ByteBuffer read() {
        return this.records.flip();
    }

    /** Lets it go without giving it back (its worker may be adding to it still): the pool may make another. */
    void discard() {
        POOL.discard(this);
    }

    /** Empties it and gives it back to the pool. */
    void giveBack() {
        this.records.clear();
        this.count = 0;
        this.closed = false;
        POOL.giveBack(this);
    }
}

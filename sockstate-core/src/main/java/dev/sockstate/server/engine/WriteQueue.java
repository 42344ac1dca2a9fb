package dev.sockstate.server.engine;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * Bytes a connection's socket did not take yet. Exists only while something is pending, so an idle
 * connection holds no write buffer.
 */
final class WriteQueue {

    private final ArrayDeque<ByteBuffer> chunks = new ArrayDeque<>();

    private long bytes;

    /** Sends refused in a row for want of system buffers; reset by a send that is not (it lives here: a refused send leaves bytes queued). */
    int noBuffers;

    /** When ({@link System#nanoTime()}) the retry of a send refused for want of buffers is due. */
    long retryAt;

    /**
     * Whether the bytes wait for the traffic shaping's share, not for room in the socket: its OUT
     * readiness is not watched meanwhile, the timer gives the turn back.
     */
    boolean throttled;

    /** @param data copied from position to limit; its position moves to the limit */
    void add(ByteBuffer data) {
        ByteBuffer copy = ByteBuffer.allocate(data.remaining());
        copy.put(data).flip();
        this.chunks.addLast(copy);
        this.bytes += copy.remaining();
    }

    /** @param chunk a buffer the queue may keep as it is */
    void addOwned(ByteBuffer chunk) {
        this.chunks.addLast(chunk);
        this.bytes += chunk.remaining();
    }

    /** @return the oldest chunk, or {@code null} */
    @Nullable ByteBuffer head() {
        return this.chunks.peekFirst();
    }

    /** @param sent bytes the socket took from the head */
    void sent(int sent) {
        this.bytes -= sent;
        ByteBuffer head = this.chunks.peekFirst();
        if (head != null && !head.hasRemaining()) {
            this.chunks.pollFirst();
        }
    }

    /** @return the bytes pending */
    long bytes() {
        return this.bytes;
    }

    /** @return whether nothing is pending */
    boolean isEmpty() {
        return this.chunks.isEmpty();
    }
}

package dev.sockstate.sample.resp;

import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.SocketClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One client of the proxy: its requests forwarded to the server, and the replies it is owed, in the
 * order it asked, each written once it and every reply before it came, from whichever thread completed
 * it. A client that pipelines more than {@link #MOST_OWED} requests, or whose replies wait over its
 * connection's write limit, stops being read, and the requests left in the read at hand wait here
 * (copies, one read's worth at most) until half of them are answered and its replies were sent: so a
 * client that never reads its replies makes the proxy hold at most that many replies and its
 * connection's write limit, whatever it sends.
 */
final class RepliesInOrder {

    /** Requests a client may have in flight before its connection stops being read. */
    static final int MOST_OWED = 128;

    private final Connection connection;

    private final SocketClient server;

    /** The replies owed, oldest first; under this object's lock. */
    private final ArrayDeque<CompletableFuture<ByteBuffer>> owed = new ArrayDeque<>();

    /** Requests read while the connection was paused, not sent yet; under this object's lock. */
    private final ArrayDeque<ByteBuffer> waiting = new ArrayDeque<>();

    private boolean paused;

    private boolean closeWhenAnswered;

    private RepliesInOrder(Connection connection, SocketClient server) {
        this.connection = connection;
        this.server = server;
    }

    /** @return the connection's replies, made on its first request */
    static RepliesInOrder of(Connection connection, SocketClient server) {
        Object attached = connection.attachment();
        if (attached instanceof RepliesInOrder replies) {
            return replies;
        }
        RepliesInOrder replies = new RepliesInOrder(connection, server);
        connection.attach(replies);
        return replies;
    }

    /** @param request a request to send to the server, its reply owed in its turn; valid during the call only */
    void forward(ByteBuffer request) {
        synchronized (this) {
            if (this.paused || !this.connection.isWritable()) {
                // Its replies would wait in the connection's queue, over its limit: the request waits instead.
                this.waiting.add(ByteBuffer.allocate(request.remaining()).put(request).flip());
                pause();
                return;
            }
        }
        add(this.server.request(request));
    }

    /** @param reply a reply the proxy gives itself, written in its turn */
    void local(String reply) {
        add(CompletableFuture.completedFuture(ByteBuffer.wrap(reply.getBytes(StandardCharsets.UTF_8))));
    }

    /** The connection closes once every reply owed now is written. */
    void closeWhenAnswered() {
        synchronized (this) {
            this.closeWhenAnswered = true;
        }
        writeAnswered();
    }

    private void add(CompletableFuture<ByteBuffer> reply) {
        synchronized (this) {
            this.owed.add(reply);
            if (this.owed.size() > MOST_OWED) {
                pause();
            }
        }
        reply.whenComplete((answer, failure) -> writeAnswered());
    }

    /** Stops reading the connection; under the lock. */
    private void pause() {
        if (!this.paused) {
            this.paused = true;
            this.connection.pauseReading();
        }
    }

    /** The connection sent all it had queued: the requests that waited go on. */
    void drained() {
        writeAnswered();
    }

    /** Writes the replies that came, in order, up to the first that has not; resumes once half are answered. */
    private void writeAnswered() {
        synchronized (this) {
            CompletableFuture<ByteBuffer> next;
            while ((next = this.owed.peek()) != null && next.isDone()) {
                this.owed.poll();
                this.connection.write(answer(next));
            }
            if (this.paused && this.owed.size() <= MOST_OWED / 2 && this.connection.isWritable()) {
                while (!this.waiting.isEmpty() && this.owed.size() < MOST_OWED && this.connection.isWritable()) {
                    this.owed.add(this.server.request(this.waiting.poll()));
                    this.owed.peekLast().whenComplete((answer, failure) -> writeAnswered());
                }
                if (this.waiting.isEmpty() && this.connection.isWritable()) {
                    this.paused = false;
                    this.connection.resumeReading();
                }
            }
            if (this.closeWhenAnswered && this.owed.isEmpty()) {
                this.connection.close();
            }
        }
    }

    private static ByteBuffer answer(CompletableFuture<ByteBuffer> reply) {
        try {
            return reply.join();
        }
        catch (CompletionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            String message = (cause instanceof ClientException) ? cause.getMessage() : cause.toString();
            return ByteBuffer.wrap(("-ERR proxy: " + message.replace('\r', ' ').replace('\n', ' ') + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
    }
}

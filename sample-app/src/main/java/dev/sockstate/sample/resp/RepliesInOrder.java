package dev.sockstate.sample.resp;

import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ReplyHandler;
import dev.sockstate.server.client.SocketClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * One client of the proxy: its requests forwarded to the server, and the replies it is owed, in the
 * order it asked. A reply that comes in its turn (the usual case: a client's requests go out on one
 * connection to the server, which answers in order) is written on at once from the frame the
 * server's connection read, with no copy of its own (the connection copies what it cannot send at
 * once); one that comes before those ahead of it is kept, copied, until they came. A client that pipelines more than {@link #MOST_OWED} requests, or whose replies
 * wait over its connection's write limit, stops being read, and the requests left in the read at hand
 * wait here (copies, one read's worth at most) until half of them are answered and its replies were
 * sent: so a client that never reads its replies makes the proxy hold at most that many replies and
 * its connection's write limit, whatever it sends.
 * <p>
 * It takes no lock: the server's client hands a reply (or a failure) to the reply handler of a
 * request that a connection's handler made on a worker as it calls that connection's handler, never
 * beside those calls, and the requests made in a reply handler are the connection's too. So every
 * method here runs in one of the connection's calls, one at a time. (A listener with a handler
 * executor calls its handlers off the workers, where this does not hold: the proxy's listener has none.)
 */
final class RepliesInOrder {

    /** Requests a client may have in flight before its connection stops being read. */
    static final int MOST_OWED = 128;

    private final Connection connection;

    private final SocketClient server;

    /** The replies owed, oldest first. */
    private final ArrayDeque<Owed> owed = new ArrayDeque<>();

    /** Requests read while the connection was paused, not sent yet, and the proxy's own replies behind them. */
    private final ArrayDeque<Held> waiting = new ArrayDeque<>();

    private boolean paused;

    /** Whether the client gave the proxy's password (the proxy's own state of the connection, not the server's). */
    boolean authenticated;

    private boolean closeWhenAnswered;

    /** Whether the replies kept are being written now. */
    private boolean writing;

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
        if (this.paused || !this.connection.isWritable()) {
            // Its replies would wait in the connection's queue, over its limit: the request waits instead.
            this.waiting.add(new Held(copy(request), false));
            pause();
            return;
        }
        send(request, owe());
    }

    /** Sends a request whose reply goes to the one owed; a request the client refuses is answered with why. */
    private void send(ByteBuffer request, Owed reply) {
        try {
            this.server.request(request, reply);
        }
        catch (RuntimeException ex) {
            reply.onReply(null, ex);
        }
    }

    /** @param reply a reply the proxy gives itself, written in its turn */
    void local(String reply) {
        local(ByteBuffer.wrap(reply.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * @param reply a reply the proxy gives itself, written in its turn (behind the requests that wait,
     * when some do); read during the call only
     */
    void local(ByteBuffer reply) {
        if (!this.waiting.isEmpty()) {
            this.waiting.add(new Held(copy(reply), true));
            return;
        }
        owe().onReply(reply, null);
    }

    /** The connection closes once every reply owed now is written. */
    void closeWhenAnswered() {
        this.closeWhenAnswered = true;
        writeAnswered();
    }

    /** The connection sent all it had queued: the requests that waited go on. */
    void drained() {
        writeAnswered();
    }

    /** @return a reply owed from now, after every other */
    private Owed owe() {
        Owed reply = new Owed();
        this.owed.add(reply);
        if (this.owed.size() > MOST_OWED) {
            pause();
        }
        return reply;
    }

    /** Stops reading the connection. */
    private void pause() {
        if (!this.paused) {
            this.paused = true;
            this.connection.pauseReading();
        }
    }

    /**
     * A reply came: written now if it is the oldest owed, with those after it that came already; else
     * kept. One that comes while the replies kept are being written (a request that waited, failing at
     * once as it is sent) is kept too, and written by that loop: no writing within writing.
     */
    private void answered(Owed answered, ByteBuffer reply) {
        if (this.writing || this.owed.peek() != answered) {
            answered.reply = copy(reply);
            return;
        }
        this.owed.poll();
        this.connection.write(reply);
        writeAnswered();
    }

    /**
     * Writes the replies kept, in order, up to the first that has not come; once half are answered,
     * sends the requests that waited and resumes.
     */
    private void writeAnswered() {
        if (this.writing) {
            // Within the loop below, on this thread: it goes on from where it is.
            return;
        }
        this.writing = true;
        try {
            boolean refill = this.paused && this.owed.size() <= MOST_OWED / 2 && this.connection.isWritable();
            while (true) {
                Owed next;
                while ((next = this.owed.peek()) != null && next.reply != null) {
                    this.owed.poll();
                    this.connection.write(next.reply);
                }
                if (!refill || this.waiting.isEmpty() || this.owed.size() >= MOST_OWED || !this.connection.isWritable()) {
                    break;
                }
                // Sent now, so that the requests that waited go out before any newer one.
                Held held = this.waiting.poll();
                if (held.local()) {
                    owe().reply = held.bytes();
                }
                else {
                    send(held.bytes(), owe());
                }
            }
            if (refill && this.waiting.isEmpty() && this.connection.isWritable()) {
                this.paused = false;
                this.connection.resumeReading();
            }
            if (this.closeWhenAnswered && this.owed.isEmpty() && this.waiting.isEmpty()) {
                this.connection.close();
            }
        }
        finally {
            this.writing = false;
        }
    }

    private static ByteBuffer copy(ByteBuffer bytes) {
        return ByteBuffer.allocate(bytes.remaining()).put(bytes).flip();
    }

    private static ByteBuffer error(Throwable failure) {
        String message = (failure instanceof ClientException) ? failure.getMessage() : String.valueOf(failure);
        return ByteBuffer.wrap(("-ERR proxy: " + message.replace('\r', ' ').replace('\n', ' ') + "\r\n").getBytes(StandardCharsets.UTF_8));
    }

    /** A request that waits to be sent, or a reply of the proxy's own that waits behind such requests (a copy either way). */
    private record Held(ByteBuffer bytes, boolean local) {
    }

    /** One reply owed: where the server's reply goes, and the reply itself while it waits for its turn. */
    private final class Owed implements ReplyHandler {

        /** The reply, once it came out of its turn (a copy). */
        private ByteBuffer reply;

        @Override
        public void onReply(ByteBuffer reply, Throwable failure) {
            answered(this, (reply != null) ? reply : error(failure));
        }
    }
}

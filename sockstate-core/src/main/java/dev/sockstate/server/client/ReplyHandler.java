package dev.sockstate.server.client;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Where a request's reply goes when it is sent with {@link SocketClient#request(Object, ReplyHandler)}:
 * called once, with the reply frame as the connection read it, or with why there is none. No future
 * and no copy of its own stand between: the frame is a view of the connection's read buffer (or of
 * the buffer that held a frame cut across reads), valid during the call only, so a handler that
 * keeps it copies it. What it throws is logged, and changes nothing for the connection. It must not block.
 * <p>
 * Where it runs: for a request that a connection's handler made on a worker (a proxy's, say), as
 * that connection's handler is called, never beside those calls: at once, with the frame in place,
 * when the reply comes on the worker that alone serves that connection; else with a copy, handed
 * over to that connection's next turn. Requests it makes belong to that connection too, so state kept
 * per connection needs no lock. (Not so for a listener with a handler executor, whose calls run off
 * the workers.) For any other request, it runs on the thread that serves the client's connection
 * (a worker, or the client's handler executor) for a reply, and on whichever thread saw a failure
 * (the one that asked; the connection's owner as it ends or its request timeout passes; the
 * client's timer when the timeout passed while a handler held that owner).
 */
@FunctionalInterface
public interface ReplyHandler {

    /**
     * @param reply the reply frame, valid during the call only; {@code null} when the request failed
     * @param failure why there is no reply: a {@link ClientException} naming the client (no connection
     * open, the connection ended before the reply, the request timeout passed), or the message's
     * failure to be written; {@code null} with a reply
     */
    void onReply(@Nullable ByteBuffer reply, @Nullable Throwable failure);
}

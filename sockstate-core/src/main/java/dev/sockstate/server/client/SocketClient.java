package dev.sockstate.server.client;

import dev.sockstate.server.Connection;
import dev.sockstate.server.shaping.Shaping;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One named outbound TCP client of a running server: a pool of connections to its backend, served by
 * the server's workers like accepted ones, connected again with backoff when they fail or close.
 * Every method may be called from any thread, a handler's included; none blocks. A handler on a
 * worker must not wait for a future they return either (that worker may be the one that has to
 * complete it): take the outcome where it comes, with a {@link ReplyHandler} or the future's
 * {@code thenAccept}/{@code whenComplete}, or give the handler a handler executor. Such a wait, on a
 * worker of the port that serves the connection, throws {@link BlockingOperationException} at once.
 * <pre>{@code
 * SocketClient redis = server.client("redis");
 * redis.request("PING").thenAccept((reply) -> ...);
 * }</pre>
 */
public interface SocketClient {

    /** @return the client's name */
    String name();

    /**
     * Sends one message on a connection of the pool, chosen as {@link #connection()} chooses: as {@link Connection#send(Object)}
     * does, so with framing one frame. It is owed no reply: for a protocol without replies, or whose
     * replies the client's handler takes. A pool is used for one or the other, messages or requests,
     * fixed by its first use: on a client that sent a request, a reply to such a message would answer
     * the next request, so {@code send} is refused there (send the message as a request and leave
     * its reply, or write it on a connection {@link #open() of your own}); and {@link #request}
     * is refused on a client that sent a message.
     * @param message the message
     * @throws ClientException when no connection of the pool is open, naming the last failure
     * @throws IllegalStateException when the client sent requests on its pool
     */
    void send(Object message);

    /**
     * Sends a request on a connection of the pool, chosen as {@link #connection()} chooses, and completes with its reply: the
     * next frame the connection reads that no earlier request is owed (replies come in the order the
     * requests went out, so requests pipeline). Needs framing. The future fails with a
     * {@link ClientException} when no connection is open, when the connection fails or closes before
     * the reply, or when the client's request timeout passes. The timeout counts from when the
     * request's bytes were handed to the socket, not while they wait in this process (behind the
     * handler that made it, say); it is checked once the replies that came were read, and the
     * connection is then closed, since the reply may still come and would answer the next request. If
     * a handler holds the worker that reads the connection's replies, the client's timer ends the
     * request instead, saying so, and the connection stays. Each request must be answered by exactly
     * one frame, in order. The future completes on the thread that serves the connection (a worker, or
     * the client's handler executor): stages that depend on it run there and must not block; give the
     * async variants an executor of their own for blocking work. Its {@code get} and {@code join}
     * throw {@link BlockingOperationException} on a worker of the port that serves its connection.
     * @param message the request, written as {@link Connection#send(Object)} writes it
     * @return the reply frame, a copy of its bytes the caller owns
     * @throws IllegalStateException when the client has no framing, or sent messages owed no reply
     * on its pool ({@link #send(Object)})
     */
    CompletableFuture<ByteBuffer> request(Object message);

    /**
     * Sends a request as {@link #request(Object)} does and hands its reply frame to the handler as the
     * connection reads it, without a copy or a future: for a proxy or a gateway that writes the reply
     * on at once, or reads it in place. The handler is called once, with the reply or with the failure
     * the future would have failed with; see {@link ReplyHandler} for the thread and the frame's life.
     * <p>
     * The default hands on the copy {@link #request(Object)} completes with, on the thread that
     * completes it; the server's clients hand on the frame itself.
     * @param message the request, written as {@link Connection#send(Object)} writes it
     * @param handler where the reply goes
     * @throws IllegalStateException when the client has no framing
     */
    default void request(Object message, ReplyHandler handler) {
        request(message).whenComplete((reply, failure) -> handler.onReply(reply,
                (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure));
    }

    /**
     * Sends a request as {@link #request(Object)} does, its reply read as the type: a {@code String}
     * in the client's charset, a {@code byte[]}, any other type by the client's message mapper.
     * @param message the request
     * @param replyType what the reply is read as
     * @param <T> the type
     * @return the reply, or a failure: a {@link ClientException}, or the mapper's
     * {@link dev.sockstate.server.InvalidMessageException} when the reply does not read as the type
     */
    <T> CompletableFuture<T> request(Object message, Class<T> replyType);

    /**
     * @return an open connection of the pool, spread over it: on a worker's thread, one that worker
     * serves when there is one (the write, and the reply's handling, stay on that thread), from a
     * start it draws at random; on another thread, in turn. To write to it as a whole (several
     * messages that must follow each other on one connection); what is written to it directly is owed
     * no reply, as with {@link #send(Object)}
     * @throws ClientException when none is open, naming the last failure
     */
    Connection connection();

    /** @return the pool's open connections now */
    List<Connection> connections();

    /**
     * Opens a connection of the client's own, outside the pool: served by the client's handler, never
     * connected again, closed by whoever asked for it (a proxy's connection to the backend for one of
     * its clients, say, relayed with {@link Relay}).
     * @return the connection once it is open; a {@link ClientException} naming each address's failure
     * when none could be connected to. Asked for on a worker, the connection is served by that
     * worker's port, so the future's {@code get} and {@code join} throw {@link BlockingOperationException} there
     */
    CompletableFuture<Connection> open();

    /**
     * Changes the traffic shaping of the client's connections, those open and those to come, from their
     * next read or send on, until the client stops (started again, it takes its settings' rates).
     * @param shaping the rates from now on, {@link Shaping#NONE} to lift them
     * @return the rates they replace
     */
    Shaping changeShaping(Shaping shaping);
}

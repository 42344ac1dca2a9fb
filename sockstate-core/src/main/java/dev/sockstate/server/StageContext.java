package dev.sockstate.server;

import java.nio.ByteBuffer;

/**
 * A {@link Stage}'s link to its neighbours in a connection's pipeline: inbound events are passed on
 * towards the handler, outbound bytes towards the socket. Only to be used by the thread calling the
 * stage.
 */
public interface StageContext {

    /** @return the connection the pipeline serves */
    Connection connection();

    /** Passes the open on: to the next stage's {@link Stage#open}, or the handler's {@code onOpen}. */
    void passOpen();

    /**
     * Passes a message on: to the next stage's {@link Stage#data}, or the handler's {@code onData}.
     * @param message the bytes, from position to limit, valid during the call
     */
    void passData(ByteBuffer message);

    /** Passes the peer's hang-up on: to the next stage's {@link Stage#hangup}, or the handler's {@code onHangup}. */
    void passHangup();

    /**
     * Writes towards the socket: to the previous stage's {@link Stage#write}, or the socket, which
     * queues what it does not take at once.
     * @param data the bytes, from position to limit; consumed
     */
    void write(ByteBuffer data);

    /** Closes the connection once queued bytes are sent. */
    void close();

    /**
     * Aborts the connection at once; the handler's {@code onError} receives the reason.
     * @param reason why, such as a protocol violation of the peer
     */
    void abort(Throwable reason);
}

package dev.sockstate.server;

import dev.sockstate.port.PeerAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/** A UDP listener's socket (or a Unix domain datagram socket's) as a handler sees it. */
public interface DatagramEndpoint {

    /** @return the listener's name */
    String listenerName();

    /** @return the bound address: an {@code InetSocketAddress}, or a {@code UnixDomainSocketAddress} */
    SocketAddress localAddress();

    /**
     * Sends one datagram without blocking. Sent from the handler on a worker, where the backend sends many
     * datagrams in one call ({@code sendmmsg} on epoll), the datagram is copied and gathered with the other
     * replies to the datagrams received in the same call, which leave together once their handler calls
     * have returned: it is then gathered, and one the socket refuses at that point is dropped and counted.
     * @param data the datagram, from position to limit; consumed when sent or gathered
     * @param target where to
     * @return whether it was sent or gathered; false when the socket's buffer is full (the datagram is
     * dropped, as UDP allows, and counted)
     */
    boolean send(ByteBuffer data, PeerAddress target);

    /**
     * Sends data to one peer as datagrams of {@code segmentSize} bytes each, the last perhaps shorter, in
     * order: a bulk reply (a file, a stream of records) in a few system calls. Sent from the handler on a
     * worker where the system cuts datagrams (Linux's {@code UDP_SEGMENT} on the epoll backend, Windows'
     * {@code UDP_SEND_MSG_SIZE} on the winsock one, Windows 10 2004 and later), up to 64 segments leave in
     * one call, after the replies gathered before them, the segment size given with the call (a datagram
     * another thread sends meanwhile leaves whole); a call the system refuses to cut (a route's MTU below
     * the segment size) goes again a segment a call. Elsewhere (nio, older Windows) and off the worker,
     * each segment is sent as {@link #send(ByteBuffer, PeerAddress)} sends a datagram.
     * Segments the socket refuses are dropped and counted, as UDP allows.
     * @param data the data, from position to limit; consumed
     * @param segmentSize the size of each datagram, 1 to 65,000 bytes
     * @param target where to
     * @return whether every segment was sent (or gathered)
     * @throws IllegalArgumentException when the segment size is out of range
     */
    boolean sendSegments(ByteBuffer data, int segmentSize, PeerAddress target);

    /**
     * @return in the handler's call on the worker, for a listener that hands coalesced datagrams over whole
     * ({@link Coalescing#WHOLE}), the size of the segments of the datagram being handled: it holds
     * datagrams of one sender of this size each, the last perhaps shorter; 0 for a datagram received
     * alone, and outside such a call
     */
    int segmentSize();

    /**
     * Sends one message as a datagram, as {@link Connection#send} writes one.
     * @param message the message
     * @param target where to
     * @return whether it was sent
     * @throws IllegalArgumentException when the listener has no mapper that writes its type
     */
    boolean send(Object message, PeerAddress target);

    /**
     * Reads a datagram as a message, as {@link Connection#readMessage} does.
     * @param datagram the datagram, from position to limit
     * @param type what to read it as
     * @param <T> the type
     * @return the message
     * @throws InvalidMessageException when the bytes do not read as that type
     */
    <T> T readMessage(ByteBuffer datagram, Class<T> type) throws InvalidMessageException;
}

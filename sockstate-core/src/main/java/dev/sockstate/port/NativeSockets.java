package dev.sockstate.port;

import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Native, non-blocking sockets of one backend: the descriptors that its {@link NotificationPort}
 * registers. Socket handles are {@code long} values (a file descriptor, or a Winsock SOCKET).
 * Failures throw {@link NativeIoException} naming the call; a call that would block is a result
 * ({@link #WOULD_BLOCK}, {@link #NO_SOCKET} or {@code false}), never an exception. An accept, a
 * send or a receive that a signal interrupted ({@code EINTR}) is made again, never reported.
 */
public interface NativeSockets {

    /** Result of a read or write that would block. */
    int WOULD_BLOCK = -1;

    /** Result of an accept with no pending connection. */
    long NO_SOCKET = -1;

    /**
     * Opens a non-blocking socket, not inherited by child processes.
     * @param protocol TCP or UDP; with the {@code UNIX} family, a stream or a datagram socket
     * @param family INET, INET6, or UNIX where the backend has Unix domain sockets
     * @return the handle
     * @throws NativeIoException when the socket could not be created ({@link NativeError#NOT_SUPPORTED}
     * for a kind of socket the backend or the system does not have)
     */
    long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException;

    /**
     * @param socket the handle
     * @param address the local address: an {@code InetSocketAddress}, or a
     * {@code UnixDomainSocketAddress} for a socket of the UNIX family (which creates the file)
     * @throws NativeIoException when the address is in use or invalid
     */
    void bind(long socket, SocketAddress address) throws NativeIoException;

    /**
     * @param socket a bound TCP socket
     * @param backlog the pending-connection queue length
     * @throws NativeIoException on failure
     */
    void listen(long socket, int backlog) throws NativeIoException;

    /**
     * Accepts a pending connection as a non-blocking socket.
     * @param listener the listening socket
     * @return the connection's handle, or {@link #NO_SOCKET} when none is pending
     * @throws NativeIoException on failure ({@link NativeError#TOO_MANY_OPEN_FILES} when out of descriptors)
     */
    long accept(long listener) throws NativeIoException;

    /**
     * Starts a connection.
     * @param socket the handle
     * @param address the peer: an {@code InetSocketAddress}, or a {@code UnixDomainSocketAddress}
     * @return true when connected at once, false when under way (wait for OUT, or ERR)
     * @throws NativeIoException on failure
     */
    boolean connect(long socket, SocketAddress address) throws NativeIoException;

    /**
     * Reads into the buffer between its position and limit, moving the position.
     * @param socket the handle
     * @param buffer the target
     * @return bytes read, zero at end of stream, or {@link #WOULD_BLOCK}
     * @throws NativeIoException when the connection failed (reset, for example)
     */
    int recv(long socket, NativeBuffer buffer) throws NativeIoException;

    /**
     * Writes the buffer's bytes between position and limit, moving the position past what was sent.
     * @param socket the handle
     * @param buffer the source
     * @return bytes written (possibly fewer than remaining), or {@link #WOULD_BLOCK}
     * @throws NativeIoException when the connection failed
     */
    int send(long socket, NativeBuffer buffer) throws NativeIoException;

    /**
     * {@link #recv(long, NativeBuffer)} for any buffer; a heap buffer costs a copy.
     * @param socket the handle
     * @param buffer the target
     * @return bytes read, zero at end of stream, or {@link #WOULD_BLOCK}
     * @throws NativeIoException on failure
     */
    int recv(long socket, ByteBuffer buffer) throws NativeIoException;

    /**
     * {@link #send(long, NativeBuffer)} for any buffer; a heap buffer costs a copy.
     * @param socket the handle
     * @param buffer the source
     * @return bytes written, or {@link #WOULD_BLOCK}
     * @throws NativeIoException on failure
     */
    int send(long socket, ByteBuffer buffer) throws NativeIoException;

    /**
     * Receives one datagram, truncated to the buffer's room, and its sender.
     * @param socket a UDP handle
     * @param buffer the target
     * @param sender filled with the sender's address
     * @return the datagram's length as received, or {@link #WOULD_BLOCK}
     * @throws NativeIoException on failure
     */
    int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) throws NativeIoException;

    /**
     * Sends one datagram.
     * @param socket a UDP handle
     * @param buffer the datagram, position to limit
     * @param target where to
     * @return bytes sent, or {@link #WOULD_BLOCK}
     * @throws NativeIoException on failure
     */
    int sendTo(long socket, NativeBuffer buffer, PeerAddress target) throws NativeIoException;

    /**
     * {@link #sendTo(long, NativeBuffer, PeerAddress)} for any buffer; a heap buffer costs a copy.
     * @param socket a UDP handle
     * @param datagram the datagram, position to limit, at most 65,536 bytes; consumed when sent
     * @param target where to
     * @return bytes sent, or {@link #WOULD_BLOCK}
     * @throws NativeIoException on failure
     */
    int sendTo(long socket, ByteBuffer datagram, PeerAddress target) throws NativeIoException;

    /**
     * @return why this backend does not join multicast groups, in a sentence; {@code null} when it does
     * ({@link #joinGroup}, {@link #leaveGroup}, {@link #sendMulticast})
     */
    default @Nullable String multicastUnsupported() {
        return "the backend does not join multicast groups";
    }

    /**
     * @return whether {@link #joinGroup} takes an interface index of 0 (the system's choice by its routes);
     * the JDK's channels join on a named interface only
     */
    default boolean joinsOnAnyInterface() {
        return true;
    }

    /**
     * Joins a multicast group on a UDP socket: the group's datagrams reach it from then on (when its bound
     * address and port take them).
     * @param socket a UDP handle
     * @param group the group's address, IPv4 or IPv6 (an IPv4 group on a dual-stack IPv6 socket too)
     * @param interfaceIndex the interface to join on, by index; 0 for the system's choice by its routes
     * @param source the one sender received (a source-specific join), {@code null} for any
     * @throws NativeIoException when refused (the interface unknown or without multicast, the group joined
     * already), {@link NativeError#NOT_SUPPORTED} where the backend does not join groups
     */
    default void joinGroup(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source) throws NativeIoException {
        throw new NativeIoException("join(" + group.getHostAddress() + ")", NativeError.NOT_SUPPORTED, 0, String.valueOf(multicastUnsupported()));
    }

    /**
     * Leaves a group joined with {@link #joinGroup} with the same arguments.
     * @param socket a UDP handle
     * @param group the group's address
     * @param interfaceIndex the interface it was joined on, 0 for the system's choice
     * @param source the sender of a source-specific join, {@code null} for any
     * @throws NativeIoException when refused (not joined so)
     */
    default void leaveGroup(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source) throws NativeIoException {
        throw new NativeIoException("leave(" + group.getHostAddress() + ")", NativeError.NOT_SUPPORTED, 0, String.valueOf(multicastUnsupported()));
    }

    /**
     * Sets how the multicast datagrams a UDP socket sends go out.
     * @param socket a UDP handle
     * @param family the socket's family: an IPv6 socket (dual-stack) is set for IPv4 groups and IPv6 ones
     * @param interfaceIndex the interface they leave from, by index; 0 for the system's choice
     * @param hops the routers they may cross (IPv4's TTL, IPv6's hop limit), 0 to 255
     * @param loopback whether they are delivered to this host's members of their group too
     * @throws NativeIoException when refused
     */
    default void sendMulticast(long socket, StandardProtocolFamily family, int interfaceIndex, int hops, boolean loopback)
            throws NativeIoException {
        throw new NativeIoException("sendMulticast", NativeError.NOT_SUPPORTED, 0, String.valueOf(multicastUnsupported()));
    }

    /**
     * Makes a batch for {@link #sendBatch}, where the backend has a call that sends many datagrams at once
     * ({@code sendmmsg}), or one that sends a datagram with its segment size ({@code WSASendMsg}).
     * @param datagrams the most datagrams one call should send, 1 to {@link DatagramBatch#MAX_CAPACITY}
     * @return the batch, with room for copies of 64 KiB; {@code null} where each datagram is sent by a
     * call of its own ({@link #sendTo})
     */
    default @Nullable OutgoingDatagrams outgoingDatagrams(int datagrams) {
        return null;
    }

    /**
     * @return whether {@link #sendBatch} sends many datagrams in one call ({@code sendmmsg}), so that replies
     * are worth gathering; where it sends one a call ({@code WSASendMsg}, made for its segment size) a reply
     * is better sent at once
     */
    default boolean sendsManyInOneCall() {
        return false;
    }

    /**
     * Sends the datagrams gathered in a batch, from one of them on, in one call ({@code sendmmsg}), or a
     * call each where the system has no call for many ({@code WSASendMsg}). A datagram that fails stops:
     * the ones before it are sent, and the caller goes on past it.
     * @param socket a UDP handle (or a Unix datagram one)
     * @param batch the batch, made by these sockets' {@link #outgoingDatagrams}
     * @param from the index of the first to send
     * @return how many were sent from {@code from}, at least one, or {@link #WOULD_BLOCK} when the socket
     * took none (its buffer full)
     * @throws NativeIoException when the datagram at {@code from} failed (its target unreachable, say)
     */
    default int sendBatch(long socket, OutgoingDatagrams batch, int from) throws NativeIoException {
        throw new IllegalStateException("These sockets send each datagram alone: they made no send batch");
    }

    /**
     * Makes a batch for {@link #receiveBatch}. A backend with a call that receives many datagrams at once
     * makes room for {@code datagrams}; one without makes room for one, which it receives as
     * {@link #receiveFrom} does.
     * @param datagrams the most datagrams one receive should take, 1 to {@link DatagramBatch#MAX_CAPACITY}
     * @param datagramSize the room for each, 1 to 65,536 bytes: a longer datagram is truncated to it
     * @return the batch, its native memory released with it by the garbage collector
     */
    default DatagramBatch datagramBatch(int datagrams, int datagramSize) {
        return datagramBatch(datagrams, datagramSize, false);
    }

    /**
     * Makes a batch for {@link #receiveBatch} from a socket that may take coalesced datagrams, as
     * {@link #datagramBatch(int, int)} does.
     * @param datagrams the most datagrams one receive should take, 1 to {@link DatagramBatch#MAX_CAPACITY}
     * @param datagramSize the room for each, 1 to 65,536 bytes: a longer datagram is truncated to it
     * @param coalesced whether the socket it receives from was asked for coalesced datagrams
     * ({@link NativeSocketOption#RECEIVE_COALESCED}): their segment sizes are then read, which on Windows takes
     * another receive call than a lone datagram's
     * @return the batch, its native memory released with it by the garbage collector
     */
    default DatagramBatch datagramBatch(int datagrams, int datagramSize, boolean coalesced) {
        return new DatagramBatch(this, 1, datagramSize);
    }

    /**
     * Receives the datagrams waiting on a socket, up to the batch's capacity, each truncated to its room,
     * with their senders, in one call where the system has one ({@code recvmmsg}). It stops at the first
     * that would block, so a receiver that reads until would-block stops where it did with
     * {@link #receiveFrom}.
     * @param socket a UDP handle (or a Unix datagram one)
     * @param batch the batch to fill: {@link DatagramBatch#size()} is then the result, or zero
     * @return the datagrams received, at least one, or {@link #WOULD_BLOCK} when none waits
     * @throws NativeIoException on failure, before any datagram was received
     */
    default int receiveBatch(long socket, DatagramBatch batch) throws NativeIoException {
        return batch.receiveAlone(this, socket);
    }

    /**
     * @param socket the handle
     * @param option the option
     * @param value its value, booleans as 0 or 1
     * @throws NativeIoException when refused
     */
    void setOption(long socket, NativeSocketOption option, int value) throws NativeIoException;

    /**
     * @param socket the handle
     * @param option the option
     * @return its value
     * @throws NativeIoException when refused
     */
    int getOption(long socket, NativeSocketOption option) throws NativeIoException;

    /**
     * Tells whether the backend can set an option to a value at all, so that settings that ask for one it
     * has not are refused before anything is bound (a socket of another kind may still refuse an option
     * the backend has: a keep-alive on a datagram socket).
     * @param option the option
     * @param value the value asked for
     * @return why this backend cannot set it so, in a sentence that names the system or the JDK; {@code null}
     * when it can
     */
    @Nullable String unsupported(NativeSocketOption option, int value);

    /**
     * Reads and clears the socket's pending error (SO_ERROR). After an ERR notification it may
     * report nothing (Windows learns the error from a read): read the socket to learn it, and take
     * this as a fallback only.
     * @param socket the handle
     * @return the error as an exception, or {@code null} when none is pending
     * @throws NativeIoException when the error could not be read
     */
    @Nullable NativeIoException takeError(long socket) throws NativeIoException;

    /**
     * @param socket the handle
     * @param input stop receiving
     * @param output send FIN after queued data
     * @throws NativeIoException on failure
     */
    void shutdown(long socket, boolean input, boolean output) throws NativeIoException;

    /**
     * Closes the socket, which also deregisters it from its port silently (no REMOVE follows).
     * @param socket the handle
     * @throws NativeIoException when the close failed (the handle is released all the same)
     */
    void close(long socket) throws NativeIoException;

    /**
     * @param socket the handle
     * @return its bound address: an {@code InetSocketAddress}, or a {@code UnixDomainSocketAddress}
     * (an empty path when unnamed)
     * @throws NativeIoException on failure
     */
    SocketAddress localAddress(long socket) throws NativeIoException;

    /**
     * @param socket a connected handle
     * @return its peer's address: an {@code InetSocketAddress}, or a {@code UnixDomainSocketAddress}
     * (an empty path for the usual unnamed peer of a Unix connection)
     * @throws NativeIoException on failure
     */
    SocketAddress remoteAddress(long socket) throws NativeIoException;

    /**
     * The credentials of the process at the other end of a connected Unix domain socket, as the
     * system recorded them when it connected ({@code SO_PEERCRED}).
     * @param socket a connected handle of the UNIX family
     * @return {@code {pid, uid, gid}}, or {@code null} where the system or the backend tells none
     * @throws NativeIoException when the system refused to tell them
     */
    default long @Nullable [] peerCredentials(long socket) throws NativeIoException {
        return null;
    }

    /**
     * @param capacity bytes
     * @return a new direct buffer whose address is known, for allocation-free I/O
     */
    NativeBuffer allocate(int capacity);
}

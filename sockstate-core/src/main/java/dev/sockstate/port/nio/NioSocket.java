package dev.sockstate.port.nio;

import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.Protocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One handle's socket. A UDP socket is a {@link DatagramChannel} from the start. A TCP socket opens
 * as a {@link SocketChannel}, for the JDK picks a channel's kind when it makes it while the socket
 * API picks it with the first call after {@code socket()}: a {@code connect} keeps it, a {@code bind}
 * or {@code listen} swaps it for a {@link ServerSocketChannel} that binds and listens at once (the JDK
 * has no listen apart from bind), with the options set so far. Options a listening channel does not
 * take (TCP_NODELAY, SO_KEEPALIVE, SO_SNDBUF) are kept and set on every socket it accepts, as Linux
 * makes accepted sockets inherit them.
 * <p>
 * Its {@link #registrations} (one per port, copied on change) let the socket calls tell a port that
 * the owner saw a would-block, which re-arms an edge-triggered registration.
 */
final class NioSocket {

    private static final Registration[] NONE = new Registration[0];

    /** Set once by the handle table, before the socket is published. */
    long handle;

    final Protocol protocol;

    final StandardProtocolFamily family;

    /** The channel of a TCP socket until it listens; {@code null} for UDP. */
    volatile @Nullable SocketChannel stream;

    /** The channel of a listening TCP socket. */
    volatile @Nullable ServerSocketChannel listener;

    /** The channel of a UDP socket. */
    final @Nullable DatagramChannel datagram;

    /**
     * Whether a UDP socket has a local address (bound, connected, or sent from): until then a receive
     * would block, as {@code recvfrom} does, where the JDK's would bind it to an ephemeral port.
     */
    volatile boolean datagramBound;

    /** Whether a connect is under way: the write side waits for OP_CONNECT, not OP_WRITE. */
    volatile boolean connecting;

    /** A connect's failure the port found ({@link #endConnectQuietly()}), for the socket's next call; {@code null} for none. */
    volatile @Nullable IOException connectFailure;

    volatile Registration[] registrations = NONE;

    /** The ports whose selectors hold a key of this socket's channel, removed registrations' included. */
    volatile NioPort[] keyedPorts = new NioPort[0];

    /** The values set so far, by option ordinal; guarded by this. */
    private final int[] optionValues = new int[NativeSocketOption.values().length];

    /** Which options were set, a bit per ordinal; guarded by this. */
    private int optionsSet;


    /** The multicast groups a UDP socket joined, to leave by their key. */
    final java.util.List<java.nio.channels.MembershipKey> memberships = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The last sender a datagram came from, decoded once. */
    volatile @Nullable CachedAddress lastSender;

    /** The last target a datagram went to, encoded once. */
    volatile @Nullable CachedAddress lastTarget;

    NioSocket(Protocol protocol, StandardProtocolFamily family, @Nullable SocketChannel stream, @Nullable DatagramChannel datagram) {
        this.protocol = protocol;
        this.family = family;
        this.stream = stream;
        this.datagram = datagram;
    }

    /** @return the channel a port registers now */
    SelectableChannel selectable() {
        ServerSocketChannel listening = this.listener;
        if (listening != null) {
            return listening;
        }
        return (this.datagram != null) ? this.datagram : this.stream;
    }

    /** @return the channel recv and send use, or {@code null} for a listening socket */
    @Nullable ByteChannel bytes() {
        return (this.datagram != null) ? this.datagram : (this.listener == null) ? this.stream : null;
    }

    /** @return the interest of the read side: OP_ACCEPT for a listening socket, else OP_READ */
    int readOps() {
        return (this.listener != null) ? SelectionKey.OP_ACCEPT : SelectionKey.OP_READ;
    }

    /** @return the interest of the write side: none for a listening socket, OP_CONNECT while connecting */
    int writeOps() {
        if (this.listener != null) {
            return 0;
        }
        return this.connecting ? SelectionKey.OP_CONNECT : SelectionKey.OP_WRITE;
    }

    /**
     * Records an option's value, for a channel that replaces this one or a socket accepted from it.
     * @param option the option
     * @param value its value
     */
    synchronized void recordOption(NativeSocketOption option, int value) {
        this.optionValues[option.ordinal()] = value;
        this.optionsSet |= 1 << option.ordinal();
    }

    /**
     * @param option an option
     * @return whether {@link #recordOption} recorded it
     */
    synchronized boolean hasOption(NativeSocketOption option) {
        return (this.optionsSet & (1 << option.ordinal())) != 0;
    }

    /**
     * @param option an option {@link #hasOption has}
     * @return its recorded value
     */
    synchronized int option(NativeSocketOption option) {
        return this.optionValues[option.ordinal()];
    }

    /**
     * @param port a port
     * @return this socket's live registration on it, or {@code null}
     */
    @Nullable Registration registrationOn(NioPort port) {
        for (Registration registration : this.registrations) {
            if (registration.port == port) {
                return registration;
            }
        }
        return null;
    }

    /** @param registration a new registration, replacing any earlier one on its port */
    synchronized void attach(Registration registration) {
        Registration[] current = this.registrations;
        for (int i = 0; i < current.length; i++) {
            if (current[i].port == registration.port) {
                Registration[] replaced = current.clone();
                replaced[i] = registration;
                this.registrations = replaced;
                return;
            }
        }
        Registration[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = registration;
        this.registrations = grown;
    }

    /** @param port a port whose selector now holds a key of this socket's channel */
    synchronized void keyedBy(NioPort port) {
        NioPort[] current = this.keyedPorts;
        NioPort[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = port;
        this.keyedPorts = grown;
    }

    /** @param port a port that closed: its selector's keys are gone, and it is not kept alive through this socket */
    synchronized void unkeyedBy(NioPort port) {
        NioPort[] current = this.keyedPorts;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == port) {
                NioPort[] shrunk = new NioPort[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                this.keyedPorts = shrunk;
                return;
            }
        }
    }

    /** @param registration a registration that ended (REMOVE, or its port closed) */
    synchronized void detach(Registration registration) {
        Registration[] current = this.registrations;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == registration) {
                Registration[] shrunk = new Registration[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                this.registrations = shrunk;
                return;
            }
        }
    }

    /**
     * Tells the ports that a call on this socket would block, which re-arms that side of an
     * edge-triggered registration; costs a field read per registration when nothing is masked.
     * @param side {@link Registration#READ_SIDE} or {@link Registration#WRITE_SIDE}
     */
    void wouldBlock(int side) {
        for (Registration registration : this.registrations) {
            if ((registration.masked & side) != 0) {
                registration.port.unmask(registration, side);
            }
        }
    }

    /** Tells the ports that the channel's interest changed (a connect began or ended). */
    /**
     * Ends a connect under way if the JDK can: the channel is connection-pending until
     * {@code finishConnect} says otherwise, and refuses to read or write until then, although the
     * handshake may have ended long before (nothing else asks the JDK but {@code takeError}).
     * @return whether the connect is still under way
     * @throws IOException when it failed (the JDK closes the channel)
     */
    boolean stillConnecting() throws IOException {
        IOException failed = this.connectFailure;
        if (failed != null) {
            throw failed;
        }
        if (!this.connecting) {
            return false;
        }
        boolean done;
        try {
            done = this.stream.finishConnect();
        }
        catch (IOException | RuntimeException ex) {
            this.connecting = false;
            interestChanged();
            throw ex;
        }
        if (done) {
            this.connecting = false;
            interestChanged();
        }
        return !done;
    }

    /** Ends a connect under way if it has ended, from the port; a failure waits for the socket's next call. */
    void endConnectQuietly() {
        try {
            stillConnecting();
        }
        catch (IOException ex) {
            this.connectFailure = ex;
        }
    }

    void interestChanged() {
        for (Registration registration : this.registrations) {
            registration.port.refresh(registration);
        }
    }

    @Override
    public String toString() {
        return "nio socket " + this.handle + " (" + this.protocol + ")";
    }

    /**
     * A socket address in the two forms a datagram needs: the JDK's, and encoded for comparing with
     * a {@link dev.sockstate.port.PeerAddress} without allocating.
     * @param address the JDK's address
     * @param encoded its encoding by {@link NioSockets}' layout, never changed (read with absolute
     * gets only, so threads may share it)
     * @param length the encoding's length
     */
    record CachedAddress(InetSocketAddress address, ByteBuffer encoded, int length) {
    }
}

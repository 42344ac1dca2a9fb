package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.SocketOptions.KeepAlive;
import dev.sockstate.server.SocketOptions;
import java.util.Arrays;

/**
 * The native options one kind of socket is given, made once from a listener's or a client's
 * {@link SocketOptions} and set with one call each: on a client's socket before it connects, on a
 * listener's before it binds (where accepted sockets inherit them), and on an accepted socket those the
 * first accepted one showed it did not inherit. Setting them allocates nothing.
 */
final class SocketOptionList {

    /** No option at all. */
    static final SocketOptionList NONE = new SocketOptionList(new NativeSocketOption[0], new int[0]);

    private final NativeSocketOption[] options;

    private final int[] values;

    private SocketOptionList(NativeSocketOption[] options, int[] values) {
        this.options = options;
        this.values = values;
    }

    /**
     * The options of a connection's socket, in the order they are set (SO_KEEPALIVE before its timing).
     * @param options the settings
     * @param protocol TCP or UDP
     * @param ipv6 whether the socket is an IPv6 one (which may carry IPv4-mapped peers too)
     * @param unix whether it is a Unix domain socket, which takes the buffers only
     * @return the list
     */
    static SocketOptionList of(SocketOptions options, Protocol protocol, boolean ipv6, boolean unix) {
        Builder list = new Builder();
        boolean tcp = protocol == Protocol.TCP && !unix;
        if (tcp && options.tcpNoDelay()) {
            list.add(NativeSocketOption.TCP_NODELAY, 1);
        }
        if (options.receiveBufferSize() > 0) {
            list.add(NativeSocketOption.RECEIVE_BUFFER, options.receiveBufferSize());
        }
        if (options.sendBufferSize() > 0) {
            list.add(NativeSocketOption.SEND_BUFFER, options.sendBufferSize());
        }
        if (!unix && options.trafficClass() >= 0) {
            // (On an IPv6 socket too: its IPv4-mapped peers are sent IPv4 packets, which take IP_TOS.)
            list.add(NativeSocketOption.TYPE_OF_SERVICE, options.trafficClass());
            if (ipv6) {
                list.add(NativeSocketOption.IPV6_TRAFFIC_CLASS, options.trafficClass());
            }
        }
        if (!tcp) {
            return list.build();
        }
        KeepAlive keepAlive = options.keepAlive();
        if (keepAlive != null) {
            list.add(NativeSocketOption.KEEP_ALIVE, 1);
            if (keepAlive.idle() != null) {
                list.add(NativeSocketOption.KEEP_ALIVE_IDLE, (int) keepAlive.idle().getSeconds());
            }
            if (keepAlive.interval() != null) {
                list.add(NativeSocketOption.KEEP_ALIVE_INTERVAL, (int) keepAlive.interval().getSeconds());
            }
            if (keepAlive.count() > 0) {
                list.add(NativeSocketOption.KEEP_ALIVE_COUNT, keepAlive.count());
            }
        }
        if (options.userTimeout() != null) {
            list.add(NativeSocketOption.USER_TIMEOUT, (int) options.userTimeout().toMillis());
        }
        if (options.linger() != null) {
            list.add(NativeSocketOption.LINGER, (int) options.linger().getSeconds());
        }
        if (options.notSentLowWatermark() > 0) {
            list.add(NativeSocketOption.NOT_SENT_LOW_WATERMARK, options.notSentLowWatermark());
        }
        return list.build();
    }

    /** @return whether there is no option to set */
    boolean isEmpty() {
        return this.options.length == 0;
    }

    /** @return how many options there are */
    int size() {
        return this.options.length;
    }

    /** @param index from 0 @return that option */
    NativeSocketOption option(int index) {
        return this.options[index];
    }

    /** @param index from 0 @return that option's value */
    int value(int index) {
        return this.values[index];
    }

    /**
     * Sets each option on a socket, in order.
     * @param sockets the backend's sockets
     * @param socket the socket
     * @throws NativeIoException naming the first option refused
     */
    void applyTo(NativeSockets sockets, long socket) throws NativeIoException {
        for (int i = 0; i < this.options.length; i++) {
            sockets.setOption(socket, this.options[i], this.values[i]);
        }
    }

    /**
     * Reads each option back from a socket that should have inherited them.
     * @param sockets the backend's sockets
     * @param socket an accepted socket
     * @return the options the socket does not have as listed: those to set on each accepted socket
     * @throws NativeIoException when one cannot be read
     */
    SocketOptionList notInheritedBy(NativeSockets sockets, long socket) throws NativeIoException {
        Builder missing = new Builder();
        for (int i = 0; i < this.options.length; i++) {
            int read = sockets.getOption(socket, this.options[i]);
            if (!holds(this.options[i], this.values[i], read)) {
                missing.add(this.options[i], this.values[i]);
            }
        }
        return missing.build();
    }

    /** Whether a value read back is the one set: Linux doubles the buffer sizes it is given, a flag reads as any non-zero. */
    static boolean holds(NativeSocketOption option, int set, int read) {
        return switch (option) {
            case RECEIVE_BUFFER, SEND_BUFFER -> read >= set;
            case TCP_NODELAY, KEEP_ALIVE -> (read != 0) == (set != 0);
            // Linux keeps a TCP socket's ECN bits to itself: the DSCP bits are what was set.
            case TYPE_OF_SERVICE, IPV6_TRAFFIC_CLASS -> (read & ~3) == (set & ~3);
            default -> read == set;
        };
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < this.options.length; i++) {
            text.append((i > 0) ? ", " : "").append(this.options[i].nativeName()).append('=').append(this.values[i]);
        }
        return text.append(']').toString();
    }

    /** Collects options in order. */
    private static final class Builder {

        private NativeSocketOption[] options = new NativeSocketOption[NativeSocketOption.values().length];

        private int[] values = new int[this.options.length];

        private int size;

        void add(NativeSocketOption option, int value) {
            this.options[this.size] = option;
            this.values[this.size++] = value;
        }

        SocketOptionList build() {
            return (this.size == 0) ? NONE : new SocketOptionList(Arrays.copyOf(this.options, this.size), Arrays.copyOf(this.values, this.size));
        }
    }
}

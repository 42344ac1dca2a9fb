package dev.sockstate.port.nio;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.Protocol;
import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** The JDK's socket options for the portable ones, and how a socket's are set and read in the native form. */
final class JdkOptions {

    private JdkOptions() {
    }

    /**
     * @return the JDK's option, or {@code null} where the JDK has none: IPV6_V6ONLY (handled apart),
     * TCP_USER_TIMEOUT, TCP_NOTSENT_LOWAT, TCP_FASTOPEN and SO_RXQ_OVFL; IPv4's type of service and IPv6's traffic
     * class are one option to the JDK, which sets the one of the channel's family
     */
    static @Nullable SocketOption<?> standard(NativeSocketOption option) {
        return switch (option) {
            case REUSE_ADDRESS -> StandardSocketOptions.SO_REUSEADDR;
            case REUSE_PORT -> StandardSocketOptions.SO_REUSEPORT;
            case TCP_NODELAY -> StandardSocketOptions.TCP_NODELAY;
            case RECEIVE_BUFFER -> StandardSocketOptions.SO_RCVBUF;
            case SEND_BUFFER -> StandardSocketOptions.SO_SNDBUF;
            case KEEP_ALIVE -> StandardSocketOptions.SO_KEEPALIVE;
            case KEEP_ALIVE_IDLE -> Extended.KEEP_ALIVE_IDLE;
            case KEEP_ALIVE_INTERVAL -> Extended.KEEP_ALIVE_INTERVAL;
            case KEEP_ALIVE_COUNT -> Extended.KEEP_ALIVE_COUNT;
            case LINGER -> StandardSocketOptions.SO_LINGER;
            case TYPE_OF_SERVICE, IPV6_TRAFFIC_CLASS -> StandardSocketOptions.IP_TOS;
            case IPV6_ONLY, USER_TIMEOUT, NOT_SENT_LOW_WATERMARK, FAST_OPEN, RECEIVE_QUEUE_OVERFLOWS, SEGMENT_SIZE, RECEIVE_COALESCED -> null;
        };
    }

    /**
     * @param option an option
     * @return why the JDK's channels cannot set it here, {@code null} when a TCP socket channel can
     */
    static @Nullable String unsupported(NativeSocketOption option) {
        if (option == NativeSocketOption.IPV6_ONLY) {
            return null;
        }
        SocketOption<?> name = standard(option);
        if (name == null) {
            return "the JDK's socket channels have no " + option.nativeName()
                    + (Extended.MISSING && option.name().startsWith("KEEP_ALIVE_") ? " (the runtime has no jdk.net module)" : "");
        }
        if (!Probe.TCP_OPTIONS.contains(name)) {
            return "the JDK's socket channels have no " + option.nativeName() + " on " + System.getProperty("os.name");
        }
        return null;
    }

    /**
     * The keep-alive's timing, from the {@code jdk.net} module: {@code null} each where the runtime has it
     * not (an image made without it).
     */
    private static final class Extended {

        static final boolean MISSING;

        static final @Nullable SocketOption<Integer> KEEP_ALIVE_IDLE;

        static final @Nullable SocketOption<Integer> KEEP_ALIVE_INTERVAL;

        static final @Nullable SocketOption<Integer> KEEP_ALIVE_COUNT;

        static {
            SocketOption<Integer> idle = null;
            SocketOption<Integer> interval = null;
            SocketOption<Integer> count = null;
            boolean missing = false;
            try {
                idle = jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE;
                interval = jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL;
                count = jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT;
            }
            catch (LinkageError ex) {
                missing = true;
            }
            MISSING = missing;
            KEEP_ALIVE_IDLE = idle;
            KEEP_ALIVE_INTERVAL = interval;
            KEEP_ALIVE_COUNT = count;
        }
    }

    /** What a socket channel supports here, asked once of one opened and closed at once. */
    private static final class Probe {

        static final Set<SocketOption<?>> TCP_OPTIONS = probe();

        private static Set<SocketOption<?>> probe() {
            try (SocketChannel channel = SocketChannel.open()) {
                return Set.copyOf(channel.supportedOptions());
            }
            catch (IOException ex) {
                // No socket to ask: the standard options every channel has, and the rest refused when set.
                return Set.of(StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.SO_RCVBUF,
                        StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_LINGER);
            }
        }
    }

    /**
     * Sets on a channel the options a socket kept (as set before its channel could take them).
     * @param from the socket that kept them
     * @param to the channel
     * @param which the JDK's options to set
     */
    static void copyKept(NioSocket from, NetworkChannel to, Predicate<SocketOption<?>> which) throws IOException {
        for (NativeSocketOption option : NativeSocketOption.values()) {
            SocketOption<?> name = standard(option);
            if (name != null && from.hasOption(option) && which.test(name)) {
                set(to, name, from.option(option));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void set(NetworkChannel channel, SocketOption<?> name, int value) throws IOException {
        if (name.type() == Boolean.class) {
            channel.setOption((SocketOption<Boolean>) name, value != 0);
        }
        else {
            channel.setOption((SocketOption<Integer>) name, value);
        }
    }

    /**
     * Sets an option as {@code setsockopt} would: on the channel when the JDK has it there, kept by a
     * listening socket for the sockets it accepts otherwise.
     * @param found the socket
     * @param option the option
     * @param value its native value
     * @param call the call, for errors
     * @throws NativeIoException when the JDK refuses it or has it not
     */
    static void set(NioSocket found, NativeSocketOption option, int value, String call) throws NativeIoException {
        if (option == NativeSocketOption.IPV6_ONLY) {
            requireIpv6(found, call);
            if (value != 0) {
                throw JdkErrors.exception(call, NativeError.NOT_SUPPORTED,
                        "the JDK opens IPv6 sockets dual-stack and cannot set IPV6_V6ONLY; bind an IPv6 address to take IPv6 only");
            }
            return;
        }
        SocketOption<?> name = standard(option);
        if (name == null) {
            throw JdkErrors.exception(call, NativeError.NOT_SUPPORTED, unsupported(option));
        }
        synchronized (found) {
            NetworkChannel channel = (NetworkChannel) found.selectable();
            try {
                if (channel.supportedOptions().contains(name)) {
                    set(channel, name, value);
                }
                else if (found.listener == null) {
                    throw JdkErrors.exception(call, NativeError.NOT_SUPPORTED, "the JDK's " + kind(found) + " has no " + name.name()
                            + " on " + System.getProperty("os.name"));
                }
                // A listening channel keeps it for the sockets it accepts (inherit).
            }
            catch (IOException | RuntimeException ex) {
                throw JdkErrors.exception(call, ex);
            }
            if (found.protocol == Protocol.TCP) {
                found.recordOption(option, value);
            }
        }
    }

    /**
     * Reads an option as {@code getsockopt} would.
     * @param found the socket
     * @param option the option
     * @param call the call, for errors
     * @return its native value
     * @throws NativeIoException when the JDK has it not
     */
    static int get(NioSocket found, NativeSocketOption option, String call) throws NativeIoException {
        if (option == NativeSocketOption.IPV6_ONLY) {
            requireIpv6(found, call);
            return 0;
        }
        SocketOption<?> name = standard(option);
        if (name == null) {
            throw JdkErrors.exception(call, NativeError.NOT_SUPPORTED, unsupported(option));
        }
        synchronized (found) {
            NetworkChannel channel = (NetworkChannel) found.selectable();
            try {
                if (channel.supportedOptions().contains(name)) {
                    Object value = channel.getOption(name);
                    return (value instanceof Boolean on) ? (on ? 1 : 0) : (Integer) value;
                }
            }
            catch (IOException | RuntimeException ex) {
                throw JdkErrors.exception(call, ex);
            }
            if (found.listener != null && found.hasOption(option)) {
                return found.option(option);
            }
            throw JdkErrors.exception(call, NativeError.NOT_SUPPORTED, "the JDK's " + kind(found) + " has no " + name.name()
                    + ((found.listener != null) ? " until it is set for the sockets it accepts" : ""));
        }
    }

    private static void requireIpv6(NioSocket socket, String call) throws NativeIoException {
        if (socket.family != StandardProtocolFamily.INET6) {
            throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "IPV6_V6ONLY is an option of IPv6 sockets");
        }
    }

    private static String kind(NioSocket socket) {
        return (socket.listener != null) ? "listening channel" : (socket.datagram != null) ? "datagram channel" : "socket channel";
    }
}

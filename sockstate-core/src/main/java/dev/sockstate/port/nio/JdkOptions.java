package dev.sockstate.port.nio;

import dev.sockstate.port.NativeSocketOption;
import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;

/** The JDK's socket options for the portable ones, and how a value in the native form is set. */
final class JdkOptions {

    private JdkOptions() {
    }

    /** @return the JDK's option, or {@code null} for IPV6_V6ONLY, which it has not */
    static SocketOption<?> standard(NativeSocketOption option) {
        return switch (option) {
            case REUSE_ADDRESS -> StandardSocketOptions.SO_REUSEADDR;
            case REUSE_PORT -> StandardSocketOptions.SO_REUSEPORT;
            case TCP_NODELAY -> StandardSocketOptions.TCP_NODELAY;
            case RECEIVE_BUFFER -> StandardSocketOptions.SO_RCVBUF;
            case SEND_BUFFER -> StandardSocketOptions.SO_SNDBUF;
            case KEEP_ALIVE -> StandardSocketOptions.SO_KEEPALIVE;
            case IPV6_ONLY -> null;
        };
    }

    @SuppressWarnings("unchecked")
    static void set(NetworkChannel channel, SocketOption<?> name, int value) throws IOException {
        if (name.type() == Boolean.class) {
            channel.setOption((SocketOption<Boolean>) name, value != 0);
        }
        else {
            channel.setOption((SocketOption<Integer>) name, value);
        }
    }

}

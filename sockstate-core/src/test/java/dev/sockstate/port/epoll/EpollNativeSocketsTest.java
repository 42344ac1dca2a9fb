package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NativeSocketsContract;
import dev.sockstate.port.Protocol;
import java.net.StandardProtocolFamily;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The native sockets contract on Linux. */
@EnabledOnOs(OS.LINUX)
class EpollNativeSocketsTest extends NativeSocketsContract {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }

    @Override
    protected boolean receivesBatches() {
        return true;
    }

    @Test
    void reuseAddressIsLinuxsSoReuseaddr() throws Exception {
        NativeSockets sockets = backend().sockets();
        long socket = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            sockets.setOption(socket, NativeSocketOption.REUSE_ADDRESS, 1);
            assertThat(sockets.getOption(socket, NativeSocketOption.REUSE_ADDRESS)).isNotZero();
        }
        finally {
            sockets.close(socket);
        }
    }
}

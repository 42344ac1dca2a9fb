package dev.sockstate.server.engine.embedded;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.PortSemanticsContract;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;

/**
 * The port semantics the real ports keep, run on the embedded harness's port in memory: what a
 * handler sees through {@code EmbeddedConnection} is what a server would show it. The peer is the
 * in-memory socket's.
 */
class EmbeddedPortSemanticsTest extends PortSemanticsContract {

    private EmbeddedSocket socket;

    private Backend backend;

    @AfterEach
    void forgetTheSocket() {
        this.backend = null;
    }

    /** A backend of one socket in memory, made anew for each test. */
    @Override
    protected Backend backend() {
        if (this.backend == null) {
            this.backend = inMemory();
        }
        return this.backend;
    }

    private Backend inMemory() {
        this.socket = new EmbeddedSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 7),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 49152));
        EmbeddedSocket made = this.socket;
        return new Backend() {

            @Override
            public String name() {
                return "embedded";
            }

            @Override
            public Availability availability() {
                return Availability.available("a socket and a port in memory");
            }

            @Override
            public boolean isNativeToThisSystem() {
                return false;
            }

            @Override
            public NotificationPort openPort() {
                return new EmbeddedPort(made);
            }

            @Override
            public NativeSockets sockets() {
                return made;
            }
        };
    }

    /** @return the one socket, its peer in memory */
    @Override
    protected Connection connect() {
        EmbeddedSocket peerOf = this.socket;
        return new Connection(EmbeddedSocket.HANDLE, null) {

            @Override
            public void send(String text) {
                peerOf.peerWrites(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            }

            @Override
            public void hangUp() {
                peerOf.peerShuts();
            }

            @Override
            public void reset() {
                peerOf.peerResets();
            }
        };
    }
}

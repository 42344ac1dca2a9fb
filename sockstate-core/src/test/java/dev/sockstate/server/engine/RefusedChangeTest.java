package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.Operation;
import dev.sockstate.server.Connection;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A registration change the port refuses fails its connection as any native failure does: the
 * handler's {@code onError} hears the port's error, then {@code onClose}, and the peer sees the
 * connection end; the listener serves on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RefusedChangeTest {

    private final ServerFixture fixture = new ServerFixture();

    /** The completion key whose ENABLEs the port reports refused, -1 for none. */
    private volatile long refusedKey = -1;

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void aReArmThePortRefusesFailsTheConnectionThroughOnErrorThenOnClose() throws Exception {
        AtomicReference<TcpConnection> first = new AtomicReference<>();
        CountDownLatch finished = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                first.compareAndSet(null, (TcpConnection) connection);
            }

            @Override
            public void onClose(Connection connection) {
                super.onClose(connection);
                finished.countDown();
            }
        };
        SocketServer server = this.fixture.start(new RefusingBackend(ServerFixture.backend(),
                (operation, socket, key) -> operation == Operation.ENABLE && key == this.refusedKey),
                List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), ServerObserver.NONE,
                ServerFixture.tcp("refused").handler(handler).build());
        Socket client = this.fixture.connect(server, "refused");
        ServerFixture.await(() -> first.get() != null && !first.get().isOwned(), "the connection opened and was armed");
        this.refusedKey = first.get().key();
        client.getOutputStream().write("one".getBytes());
        assertThat(finished.await(10, TimeUnit.SECONDS)).as("onClose called").isTrue();
        assertThat(handler.errors).as("what onError heard").singleElement().isInstanceOfSatisfying(NativeIoException.class,
                (error) -> assertThat(error.error()).isEqualTo(NativeError.BAD_DESCRIPTOR));
        assertThat(readToEnd(client)).as("the echo before the failure, then the end").isIn("one", "");
        this.refusedKey = -1;
        Socket later = this.fixture.connect(server, "refused");
        later.getOutputStream().write("two".getBytes());
        byte[] echo = new byte[3];
        assertThat(later.getInputStream().readNBytes(echo, 0, 3)).isEqualTo(3);
        assertThat(new String(echo)).as("the listener serves on").isEqualTo("two");
    }

    private static String readToEnd(Socket client) throws IOException {
        try {
            return new String(client.getInputStream().readAllBytes());
        }
        catch (IOException ex) {
            // a reset also ends the connection
            return "";
        }
    }
}

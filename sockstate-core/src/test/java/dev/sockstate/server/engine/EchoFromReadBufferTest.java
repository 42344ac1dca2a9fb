package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A handler that writes back the buffer a read handed it (an echo) has it sent from the worker's own
 * native buffer: the backend is given that native buffer, not the heap-facing view it would first
 * look up native memory for. A write of any other buffer takes the view's path, and the bytes are
 * the same either way.
 */
class EchoFromReadBufferTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @Test
    void anEchoedReadIsSentFromTheWorkersNativeBufferAndACopyFromItsView() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "counts the real backend's calls: short sends queue a copy, sent through its view");
        AtomicInteger fromNative = new AtomicInteger();
        AtomicInteger fromView = new AtomicInteger();
        SocketServer server = this.fixture.start(AcceptPerWorkerFailureTest.withSockets(ServerFixture.backend(),
                (real, method, arguments) -> {
                    if (method.equals("send")) {
                        (arguments[1] instanceof NativeBuffer ? fromNative : fromView).incrementAndGet();
                    }
                }), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), ServerObserver.NONE,
                ListenerSettings.tcp("echo").handler(new EchoHandler()).build(),
                ListenerSettings.tcp("copy").handler(new CopyingEcho()).build());
        exchange(this.fixture.connect(server, "echo"), 20);
        assertThat(fromNative.get()).as("sends from the worker's native buffer").isGreaterThanOrEqualTo(20);
        assertThat(fromView.get()).as("sends through a buffer's view").isZero();
        fromNative.set(0);
        exchange(this.fixture.connect(server, "copy"), 20);
        assertThat(fromView.get()).as("sends of the handler's own copies").isGreaterThanOrEqualTo(20);
        assertThat(fromNative.get()).as("sends from the worker's native buffer").isZero();
    }

    /** Sends one message at a time and reads its echo whole. */
    private static void exchange(Socket client, int messages) throws IOException {
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        for (int m = 0; m < messages; m++) {
            byte[] message = ("message " + m + "\n").getBytes();
            out.write(message);
            assertThat(in.readNBytes(message.length)).isEqualTo(message);
        }
    }

    /** Echoes a direct copy of each read, not the buffer it was handed. */
    static final class CopyingEcho extends EchoHandler {

        @Override
        public void onData(Connection connection, ByteBuffer data) throws Exception {
            ByteBuffer copy = ByteBuffer.allocateDirect(data.remaining());
            copy.put(data).flip();
            connection.write(copy);
        }
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order in which a one-shot connection's registration changes reach the port: a worker queues
 * its re-arm for its next call, and goes on with the rest of its batch first. A turn that another
 * thread's write starts meanwhile must not let its own change reach the port before that one, which
 * would then undo it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RearmOrderTest {

    /** Bigger than what a loopback socket and a peer with a small window buffer between them. */
    private static final int BIG_REPLY = 16 << 20;

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void aReplyWrittenFromAnotherThreadWhileTheLastReArmIsQueuedIsSentWhole() throws Exception {
        Map<Character, CountDownLatch> holds = new ConcurrentHashMap<>();
        Map<Character, CountDownLatch> held = new ConcurrentHashMap<>();
        Map<Character, TcpConnection> connections = new ConcurrentHashMap<>();
        for (char name : "wzy".toCharArray()) {
            holds.put(name, new CountDownLatch(1));
            held.put(name, new CountDownLatch(1));
        }
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                char name = (char) data.get(0);
                connections.put(name, (TcpConnection) connection);
                CountDownLatch hold = holds.get(name);
                if (hold != null) {
                    held.get(name).countDown();
                    assertThat(hold.await(20, TimeUnit.SECONDS)).isTrue();
                }
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("order").trigger(Trigger.LEVEL_ONESHOT)
                .maxPendingWriteBytes(2L * BIG_REPLY).handler(handler).build());
        Socket w = this.fixture.connect(server, "order");
        Socket z = this.fixture.connect(server, "order");
        Socket x = this.fixture.connectWithSmallWindow(server, "order");
        Socket y = this.fixture.connect(server, "order");
        ServerFixture.await(() -> server.listener("order").activeConnections() == 4, "four connections opened");
        // Both workers held, each in a handler: what arrives now waits on the port.
        w.getOutputStream().write('w');
        assertThat(held.get('w').await(10, TimeUnit.SECONDS)).isTrue();
        z.getOutputStream().write('z');
        assertThat(held.get('z').await(10, TimeUnit.SECONDS)).isTrue();
        x.getOutputStream().write('x');
        y.getOutputStream().write('y');
        Thread.sleep(200);
        // The first worker takes x and y in one batch: it queues x's re-arm, then is held by y's handler.
        holds.get('w').countDown();
        assertThat(held.get('y').await(10, TimeUnit.SECONDS)).isTrue();
        TcpConnection target = connections.get('x');
        assertThat(target).as("x was handled before y").isNotNull();
        assertThat(rearmsInFlight(target)).as("x's re-arm waits for the held worker's next call").isEqualTo(1);
        // The second worker is free; a reply written from here starts a turn of x's.
        holds.get('z').countDown();
        target.write(ByteBuffer.allocate(BIG_REPLY));
        ServerFixture.await(() -> target.pendingWriteBytes() < BIG_REPLY && !target.isOwned() && rearmsInFlight(target) == 1,
                "the write's turn sent what fitted and armed x for room, before x's queued re-arm reached the port");
        holds.get('y').countDown();
        assertThat(ServerFixture.readCount(x.getInputStream(), BIG_REPLY)).as("reply bytes").isEqualTo(BIG_REPLY);
        assertThat(handler.errors).isEmpty();
    }

    private static int rearmsInFlight(SocketState socket) {
        return socket.word() >>> SocketState.REARM_SHIFT;
    }
}

package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A worker that served sockets yields its processor once before its next dequeue that may wait, and
 * then waits: it serves the same, and once the traffic stops it costs no processor time, whether it
 * yields or not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class YieldBeforeWaitTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @ParameterizedTest(name = "yieldBeforeWait {0}")
    @ValueSource(booleans = { true, false })
    void aWorkerThatServedManyTurnsCostsNoProcessorTimeOnceTheTrafficStops(boolean yieldBeforeWait) throws Exception {
        WorkerGroupSettings group = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2).withYieldBeforeWait(yieldBeforeWait);
        assertThat(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2).yieldBeforeWait()).as("the default").isFalse();
        ConnectionHandler echo = (connection, data) -> connection.write(data);
        SocketServer server = this.fixture.start(List.of(group), ServerFixture.tcp("echo").handler(echo).build());
        assertThat(server.workerGroupSettings().get(0).yieldBeforeWait()).isEqualTo(yieldBeforeWait);
        Socket client = this.fixture.connect(server, "echo");
        client.setSoTimeout(5000);
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        // Each round trip is a dequeue that served a socket, so the worker yields before each next one.
        for (int i = 0; i < 2000; i++) {
            out.write(i);
            assertThat(in.read()).as("echo %d", i).isEqualTo(i & 0xff);
        }
        Thread.sleep(100);
        long before = ServerFixture.workerCpuNanos();
        Thread.sleep(1000);
        long spent = ServerFixture.workerCpuNanos() - before;
        assertThat(Duration.ofNanos(spent)).as("the workers' processor time in a second without traffic").isLessThan(Duration.ofMillis(50));
        out.write('z');
        assertThat(in.read()).as("served again after the quiet second").isEqualTo('z');
    }
}

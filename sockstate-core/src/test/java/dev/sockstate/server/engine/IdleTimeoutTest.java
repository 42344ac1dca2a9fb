package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The idle timeout counts time without traffic, not time a handler spends answering. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleTimeoutTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    @BlocksWorkers("a handler works longer than the idle timeout")
    void aHandlerThatTakesLongerThanTheIdleTimeoutStillAnswers() throws Exception {
        assertSlowReplyArrives(ServerFixture.tcp("slow").idleTimeout(Duration.ofMillis(200)));
    }

    @Test
    void aHandlerOnTheExecutorThatTakesLongerThanTheIdleTimeoutStillAnswers() throws Exception {
        assertSlowReplyArrives(ServerFixture.tcp("slow").idleTimeout(Duration.ofMillis(200)).handlerExecutor(this.executor));
    }

    @Test
    void aConnectionWithoutTrafficIsClosedAfterTheIdleTimeout() throws Exception {
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("idle").idleTimeout(Duration.ofMillis(200))
                .handler(new EchoHandler()).build());
        Socket client = this.fixture.connect(server, "idle");
        long start = System.nanoTime();
        assertThat(client.getInputStream().read()).isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
    }

    private void assertSlowReplyArrives(ListenerSettings.Builder listener) throws Exception {
        ConnectionHandler slow = (connection, data) -> {
            Thread.sleep(800);
            connection.write(data);
        };
        SocketServer server = this.fixture.start(1, listener.handler(slow).build());
        Socket client = this.fixture.connect(server, "slow");
        client.getOutputStream().write("late".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(client.getInputStream().readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("late");
    }
}

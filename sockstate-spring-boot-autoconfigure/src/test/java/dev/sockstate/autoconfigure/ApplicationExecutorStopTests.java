package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code handler-executor: application} on platform threads: the application task executor is a
 * {@code ThreadPoolTaskExecutor}, a lifecycle bean of a later phase than the socket server's, and so
 * stopped first as the context closes. The socket server's graceful stop still answers what arrived:
 * a request that reaches the server after the executor's stop and the context's closed event, and
 * before the server drains, gets its reply from a handler call on that executor.
 */
class ApplicationExecutorStopTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(EchoConfiguration.class)
            .withPropertyValues("spring.threads.virtual.enabled=false", "sockstate.workers.threads=1",
                    "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                    "sockstate.listeners.echo.handler-executor=application", "sockstate.shutdown.timeout=5s");

    @Test
    void aStopAnswersTheRequestsThatArrivedBeforeItThoughTheApplicationExecutorStoppedFirst() throws Exception {
        AtomicReference<Socket> client = new AtomicReference<>();
        AtomicReference<String> reply = new AtomicReference<>();
        AtomicReference<Echo> echo = new AtomicReference<>();
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("one".getBytes(StandardCharsets.US_ASCII));
            assertThat(new String(socket.getInputStream().readNBytes(3), StandardCharsets.US_ASCII)).isEqualTo("one");
            client.set(socket);
            echo.set(context.getBean(Echo.class));
            context.getBean(LateRequest.class).client = socket;
        });
        // The context closed: the executor stopped taking tasks, then LateRequest sent "two", then the server drained.
        try (Socket socket = client.get()) {
            reply.set(new String(socket.getInputStream().readNBytes(3), StandardCharsets.US_ASCII));
            assertThat(reply.get()).as("the reply to a request that came before the server's stop").isEqualTo("two");
            assertThat(socket.getInputStream().read()).as("then the server's FIN").isEqualTo(-1);
            assertThat(echo.get().threads).as("both calls on the application task executor (its threads are task-N)")
                    .hasSize(2).allMatch((name) -> name.startsWith("task-"));
        }
    }

    @SocketHandler("echo")
    static class Echo {

        final List<String> threads = new CopyOnWriteArrayList<>();

        @OnData
        void onData(Connection connection, ByteBuffer data) {
            this.threads.add(Thread.currentThread().getName());
            connection.write(data);
        }
    }

    /** Stops before the socket server (a later phase stops first): sends a request as the context closes. */
    static class LateRequest implements SmartLifecycle {

        volatile Socket client;

        private volatile boolean running;

        @Override
        public void start() {
            this.running = true;
        }

        @Override
        public void stop() {
            this.running = false;
            try {
                this.client.getOutputStream().write("two".getBytes(StandardCharsets.US_ASCII));
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @Override
        public boolean isRunning() {
            return this.running;
        }

        @Override
        public int getPhase() {
            return SocketServerLifecycle.PHASE + 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoConfiguration {

        @Bean
        Echo echo() {
            return new Echo();
        }

        @Bean
        LateRequest lateRequest() {
            return new LateRequest();
        }
    }
}

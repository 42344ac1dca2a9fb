package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.client.SocketClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.stereotype.Service;

/**
 * The outbound client of the clients page in a Spring Boot application: a {@code SocketClient} bean,
 * injected by type, asks a backend on loopback that answers every line with {@code +PONG}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CacheTests {

    // tag::cache[]
    @Service
    static class Cache {

        private final SocketClient redis;

        Cache(SocketClient redis) {
            this.redis = redis;
        }

        CompletableFuture<String> ping() {
            return this.redis.request("PING", String.class);   // "+PONG"
        }
    }
    // end::cache[]

    @Test
    void theServiceGetsTheBackendsReply() throws Exception {
        try (ServerSocket backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> answerEveryLine(backend), "backend");
            answering.setDaemon(true);
            answering.start();
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
                    .withPropertyValues("sockstate.clients.redis.address=127.0.0.1:" + backend.getLocalPort(),
                            "sockstate.clients.redis.framing.type=line", "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
                    .withUserConfiguration(Cache.class).run((context) -> {
                        assertThat(context).hasNotFailed();
                        SocketClient redis = context.getBean(SocketClient.class);
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (redis.connections().isEmpty() && System.nanoTime() < deadline) {
                            Thread.sleep(10);
                        }
                        assertThat(context.getBean(Cache.class).ping().get(5, TimeUnit.SECONDS)).isEqualTo("+PONG");
                    });
        }
    }

    /** The backend: one connection at a time, a {@code +PONG} line for every line. */
    private static void answerEveryLine(ServerSocket backend) {
        while (!backend.isClosed()) {
            try (Socket connection = backend.accept()) {
                BufferedReader lines = new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
                OutputStream out = connection.getOutputStream();
                while (lines.readLine() != null) {
                    out.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            }
            catch (IOException ended) {
                // the connection ended, or the backend closed
            }
        }
    }
}

package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The socket server drains beside the web server, not after it: with a web request and a socket
 * request both in flight when the context closes, the socket server is stopping while the web
 * request still runs, and both are answered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShutdownBesideTheWebServerTests {

    static final CountDownLatch inWeb = new CountDownLatch(1);

    static final CountDownLatch inSocket = new CountDownLatch(1);

    static final CountDownLatch release = new CountDownLatch(1);

    @Test
    void bothDrainAtOnceAndBothAnswer() throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(WebAndSocketApplication.class)
                .properties("server.port=0", "server.shutdown=graceful", "spring.lifecycle.timeout-per-shutdown-phase=20s",
                        "sockstate.workers.threads=2", "sockstate.listeners.slow.address=127.0.0.1", "sockstate.listeners.slow.port=0")
                .run();
        int httpPort = context.getEnvironment().getProperty("local.server.port", Integer.class);
        int socketPort = context.getEnvironment().getProperty("local.sockstate.slow.port", Integer.class);
        // A plain socket for the web request, closed when done: no client pool outlives the test.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        CompletableFuture<String> web = CompletableFuture.supplyAsync(() -> get(httpPort, "/slow"), threads);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), socketPort)) {
            client.setSoTimeout(30_000);
            client.getOutputStream().write("request".getBytes(StandardCharsets.US_ASCII));
            assertThat(inWeb.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(inSocket.await(10, TimeUnit.SECONDS)).isTrue();
            SocketServer server = context.getBean(SocketServer.class);
            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close, threads);
            long deadline = System.currentTimeMillis() + 10_000;
            while (server.isRunning() && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.isRunning()).as("the socket server stopping while the web request is still in flight").isFalse();
            release.countDown();
            assertThat(new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("request");
            assertThat(web.get(10, TimeUnit.SECONDS)).endsWith("\r\n\r\ndone");
            closing.get(20, TimeUnit.SECONDS);
        }
        finally {
            release.countDown();
            threads.shutdown();
        }
    }

    /** @return the whole HTTP/1.1 response to a GET, read until the server closes */
    private static String get(int port, String path) {
        try (Socket http = new Socket(InetAddress.getLoopbackAddress(), port)) {
            http.setSoTimeout(30_000);
            http.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(http.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WebAndSocketApplication {

        @Bean
        SlowWeb slowWeb() {
            return new SlowWeb();
        }

        @Bean
        SlowSocket slowSocket() {
            return new SlowSocket();
        }
    }

    @RestController
    static class SlowWeb {

        @GetMapping("/slow")
        String slow() throws InterruptedException {
            inWeb.countDown();
            release.await(20, TimeUnit.SECONDS);
            return "done";
        }
    }

    @SocketHandler("slow")
    static class SlowSocket {

        @OnData
        byte[] echo(byte[] request) throws InterruptedException {
            inSocket.countDown();
            release.await(20, TimeUnit.SECONDS);
            return request;
        }
    }
}

package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.handler.OnData;
import dev.sockstate.autoconfigure.handler.SocketHandler;
import dev.sockstate.server.engine.SocketServer;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
                        "sockstate.workers.threads=2", "sockstate.listeners.slow.address=127.0.0.1")
                .run();
        int httpPort = context.getEnvironment().getProperty("local.server.port", Integer.class);
        int socketPort = context.getEnvironment().getProperty("local.sockstate.slow.port", Integer.class);
        CompletableFuture<HttpResponse<String>> web = HttpClient.newHttpClient().sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/slow")).build(), HttpResponse.BodyHandlers.ofString());
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), socketPort)) {
            client.setSoTimeout(30_000);
            client.getOutputStream().write("request".getBytes(StandardCharsets.US_ASCII));
            assertThat(inWeb.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(inSocket.await(10, TimeUnit.SECONDS)).isTrue();
            SocketServer server = context.getBean(SocketServer.class);
            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
            long deadline = System.currentTimeMillis() + 10_000;
            while (server.isRunning() && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.isRunning()).as("the socket server stopping while the web request is still in flight").isFalse();
            release.countDown();
            assertThat(new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("request");
            assertThat(web.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
            closing.get(20, TimeUnit.SECONDS);
        }
        finally {
            release.countDown();
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

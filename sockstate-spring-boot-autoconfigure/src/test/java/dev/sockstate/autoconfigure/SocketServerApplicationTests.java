package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** A whole Spring Boot application on the starter, talked to by plain Java sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketServerApplicationTests {

    @Test
    void closingTheContextWithRequestsInFlightLosesNoneAndLeavesNothingBehind() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        int descriptors = OpenDescriptors.count();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(SlowEchoApplication.class)
                .web(WebApplicationType.NONE)
                .properties("sockstate.listeners.slow.address=127.0.0.1", "sockstate.listeners.slow.port=0", "sockstate.workers.threads=2",
                        "sockstate.shutdown.timeout=10s")
                .run();
        int port = context.getEnvironment().getProperty("local.sockstate.slow.port", Integer.class);
        List<Socket> clients = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Socket client = new Socket(InetAddress.getLoopbackAddress(), port);
            client.setSoTimeout(10_000);
            client.getOutputStream().write(("request " + i).getBytes(StandardCharsets.UTF_8));
            clients.add(client);
        }
        Thread.sleep(100);
        context.close();
        for (int i = 0; i < clients.size(); i++) {
            try (Socket client = clients.get(i)) {
                assertThat(new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("request " + i);
            }
        }
        assertThat(OpenDescriptors.count()).as("descriptors: %s", OpenDescriptors.networkDescriptors()).isEqualTo(descriptors);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch((thread) -> thread.getName().startsWith("sockstate-"));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SlowEchoApplication {

        @Bean
        SlowEcho slowEcho() {
            return new SlowEcho();
        }
    }

    @SocketHandler("slow")
    static class SlowEcho {

        @OnData
        byte[] echo(byte[] request) throws InterruptedException {
            Thread.sleep(400);
            return request;
        }
    }
}

package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** A handler may inject the {@link SocketServer}: handlers are found once every singleton exists. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandlerInjectionTests {

    @Test
    void aHandlerThatInjectsTheSocketServerServesAndReadsItsBoundPort() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PortTellingApplication.class)
                .web(WebApplicationType.NONE)
                .properties("sockstate.listeners.port.address=127.0.0.1", "sockstate.listeners.port.port=0", "sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s")
                .run()) {
            int port = context.getEnvironment().getProperty("local.sockstate.port.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("which port?".getBytes(StandardCharsets.UTF_8));
                String answer = new String(client.getInputStream().readNBytes(Integer.toString(port).length()), StandardCharsets.UTF_8);
                assertThat(answer).isEqualTo(Integer.toString(port));
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PortTellingApplication {

        @Bean
        PortTeller portTeller(SocketServer server) {
            return new PortTeller(server);
        }
    }

    /** A handler that injects the server, to tell its own listener's bound port. */
    @SocketHandler("port")
    static class PortTeller {

        private final SocketServer server;

        PortTeller(SocketServer server) {
            this.server = server;
        }

        @OnData
        String port(String question) {
            return Integer.toString(this.server.listener("port").portNumber());
        }
    }

}

package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Framework 7 pauses a cached test context while another runs and restarts it when its turn
 * comes back; Spring Boot's web servers keep serving through it, and so do the socket servers: a
 * pause neither drains nor rebinds, so ports published to a test stay true.
 */
class ContextPauseTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withUserConfiguration(EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1",
                    "sockstate.listeners.echo.port=0");

    @Test
    void aPausedAndRestartedContextKeepsItsServerAndItsPorts() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            ConfigurableApplicationContext source = (ConfigurableApplicationContext) context.getSourceApplicationContext();
            source.pause();
            assertThat(context.getBean(SocketServer.class).isRunning()).as("running while paused").isTrue();
            assertThat(echo(port, "paused")).as("served while paused").isEqualTo("paused");
            source.restart();
            assertThat(context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class)).isEqualTo(port);
            assertThat(echo(port, "restarted")).isEqualTo("restarted");
        });
    }

    private static String echo(int port, String text) throws Exception {
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
            return new String(client.getInputStream().readNBytes(text.length()), StandardCharsets.US_ASCII);
        }
    }

    @SocketHandler("echo")
    static class Echo {

        @OnData
        void onData(Connection connection, ByteBuffer data) {
            connection.write(data);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoConfiguration {

        @Bean
        Echo echo() {
            return new Echo();
        }
    }
}

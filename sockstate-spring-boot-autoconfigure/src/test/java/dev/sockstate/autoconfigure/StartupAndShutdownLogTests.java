package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What an application's log says of its socket server, as Boot's logs say of its web server. */
@ExtendWith(OutputCaptureExtension.class)
class StartupAndShutdownLogTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withUserConfiguration(EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1",
                    "sockstate.listeners.echo.port=0", "sockstate.shutdown.timeout=2s");

    @Test
    void theStartIsOneLineWithTheBackendAndEachPortAndTheGracefulStopSaysWhenItBeginsAndEnds(CapturedOutput output) {
        int[] port = new int[1];
        String[] backend = new String[1];
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            port[0] = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            backend[0] = context.getBean(Backend.class).name();
            assertThat(output).contains("Socket server started on " + backend[0] + " with 'echo' on port " + port[0] + " (tcp)");
            assertThat(output).doesNotContain("Commencing graceful shutdown of the socket server");
        });
        assertThat(output).contains("Commencing graceful shutdown of the socket server. Waiting up to PT2S for active connections")
                .contains("Graceful shutdown of the socket server complete");
        assertThat(output.toString().indexOf("Commencing graceful shutdown of the socket server"))
                .isLessThan(output.toString().indexOf("Graceful shutdown of the socket server complete"));
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

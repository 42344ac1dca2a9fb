package dev.sockstate.autoconfigure.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.port.BackendUnavailableException;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;

class SockstateFailureAnalyzersTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0");

    @Test
    void theAnalyzersAreRegisteredWithSpringBoot() {
        // Analyzers of other modules need a bean factory to be built; only ours matter here.
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { })))
                .hasAtLeastOneElementOfType(ListenerBindFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(BackendUnavailableFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(SocketHandlerDefinitionFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(UnknownPropertyFailureAnalyzer.class);
    }

    /** A typo in a key would leave its setting at the default unnoticed: start-up fails, naming the key and the nearest one. */
    @Test
    void keysNoPropertyHasFailStartupEachWithTheNearestKeyTheSamePlaceTakes() {
        this.runner.withUserConfiguration(EchoConfiguration.class).withPropertyValues("sockstate.listeners.echo.idel-timeout=30s",
                "sockstate.groups.fast.batch-size=8", "sockstate.workers.thread=2", "sockstate.listeners.echo.ssl.bundel=server",
                "sockstate.clients.redis.pool.sise=4", "sockstate.nothing-like-it=1").run((context) -> {
                    FailureAnalysis analysis = new UnknownPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).as("the analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains("sockstate.listeners.echo.idel-timeout")
                            .contains("sockstate.groups.fast.batch-size");
                    assertThat(analysis.getAction()).contains("sockstate.listeners.echo.idel-timeout: did you mean sockstate.listeners.echo.idle-timeout?")
                            .contains("sockstate.workers.thread: did you mean sockstate.workers.threads?")
                            .contains("sockstate.listeners.echo.ssl.bundel: did you mean sockstate.listeners.echo.ssl.bundle?")
                            .contains("sockstate.clients.redis.pool.sise: did you mean sockstate.clients.redis.pool.size?")
                            .contains("sockstate.groups.fast.batch-size: did you mean sockstate.batch-size?")
                            .contains("sockstate.nothing-like-it: no key near it");
                });
    }

    @Test
    void anEnvironmentVariableThatNoPropertyHasIsNotRefused() {
        this.runner.withUserConfiguration(EchoConfiguration.class)
                .withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(new SystemEnvironmentPropertySource(
                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of("SOCKSTATE_HOME", "/opt/sockstate"))))
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void theBackendsOwnSystemPropertiesAreNotRefused() {
        this.runner.withUserConfiguration(EchoConfiguration.class).withPropertyValues("sockstate.epoll.binding=jna",
                "sockstate.winsock.library=/opt/emulator.so", "sockstate.winsock.kernel32=kernel32")
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void aFileThatIsNotASocketAtAUnixListenersPathIsDescribedNamingTheAddressProperty(@TempDir Path directory) throws Exception {
        Path path = Files.writeString(directory.resolve("echo.sock"), "data");
        this.runner.withUserConfiguration(EchoConfiguration.class).withPropertyValues("sockstate.listeners.echo.address=unix:" + path)
                .run((context) -> {
                    FailureAnalysis analysis = new ListenerBindFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("Listener 'echo'").contains("Unix socket " + path)
                            .contains("not a socket");
                    assertThat(analysis.getAction()).contains("sockstate.listeners.echo.address (unix:" + path + ")");
                });
        assertThat(Files.readString(path)).isEqualTo("data");
    }

    @Test
    void aUnixDatagramListenerOnTheNioBackendIsDescribedNamingWhatToChange(@TempDir Path directory) {
        this.runner.withUserConfiguration(DatagramConfiguration.class).withPropertyValues("sockstate.backend=nio",
                "sockstate.listeners.echo.protocol=udp", "sockstate.listeners.echo.address=unix:" + directory.resolve("echo.sock"))
                .run((context) -> {
                    FailureAnalysis analysis = new ListenerBindFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("Listener 'echo'").contains("no Unix domain datagram channel");
                    assertThat(analysis.getAction()).contains("sockstate.backend").contains("sockstate.listeners.echo.protocol");
                });
    }

    @Test
    void aPortInUseIsDescribedWithTheListenerAndThePortAsForTheWebServer() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            this.runner.withUserConfiguration(EchoConfiguration.class)
                    .withPropertyValues("sockstate.listeners.echo.port=" + port, "sockstate.listeners.echo.reuse-address=false")
                    .run((context) -> {
                        FailureAnalysis analysis = new ListenerBindFailureAnalyzer().analyze(context.getStartupFailure());
                        assertThat(analysis.getDescription()).isEqualTo("Listener 'echo' failed to start. Port " + port
                                + " was already in use.");
                        assertThat(analysis.getAction()).contains("sockstate.listeners.echo.port");
                    });
        }
    }

    @Test
    void aListenerWithoutHandlerIsDescribedWithWhatToAdd() {
        this.runner.run((context) -> {
            FailureAnalysis analysis = new SocketHandlerDefinitionFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).isEqualTo("Listener 'echo' has no handler.");
            assertThat(analysis.getAction()).contains("@SocketHandler(\"echo\")");
        });
    }

    @Test
    void anUnavailableBackendIsDescribedWithWhatRuns() {
        FailureAnalysis analysis = new BackendUnavailableFailureAnalyzer().analyze(new IllegalStateException("wrapped",
                new BackendUnavailableException("winsock", "The winsock backend cannot run on Linux 6.1 (amd64): needs Windows", null)));
        assertThat(analysis.getDescription()).contains("The winsock backend cannot run on Linux");
        assertThat(analysis.getAction()).contains("sockstate.enabled=false").contains("Linux (epoll)");
    }

    @SocketHandler("echo")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class DatagramConfiguration {

        @Bean
        Datagrams datagrams() {
            return new Datagrams();
        }
    }

    @SocketHandler("echo")
    static class Datagrams {

        @OnDatagram
        ByteBuffer reflect(ByteBuffer data) {
            return data;
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

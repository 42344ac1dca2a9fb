package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.PeerCredentials;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code address: unix:<path>}: a listener on a Unix domain socket, its file's permissions, the
 * handler parameters that tell its peer, and the start-up failures that name the property.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnixListenerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s");

    @TempDir
    Path directory;

    @Test
    void aListenerOnAUnixSocketServesWithoutAPortAndTellsItsHandlerThePeer(CapturedOutput output) {
        Path path = this.directory.resolve("who.sock");
        this.runner.withUserConfiguration(WhoConfiguration.class)
                .withPropertyValues("sockstate.listeners.who.address=unix:" + path, "sockstate.listeners.who.unix-permissions=rw-rw----")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rw-rw----");
                    assertThat(context.getBean(SocketServer.class).listener("who").address()).isEqualTo(UnixDomainSocketAddress.of(path));
                    assertThat(context.getEnvironment().getProperty("local.sockstate.who.port")).isNull();
                    assertThat(output).contains("Socket server started on epoll with 'who' on unix:" + path + " (stream)");
                    try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                        client.write(ByteBuffer.wrap("hi".getBytes(StandardCharsets.UTF_8)));
                        ByteBuffer reply = ByteBuffer.allocate(2);
                        while (reply.hasRemaining() && client.read(reply) >= 0) {
                            // the echo
                        }
                        assertThat(new String(reply.array(), StandardCharsets.UTF_8)).isEqualTo("hi");
                    }
                    Who who = context.getBean(Who.class);
                    assertThat(who.peer.get(5, TimeUnit.SECONDS)).isEqualTo(UnixDomainSocketAddress.of(""));
                    assertThat(who.credentials.get(5, TimeUnit.SECONDS).pid()).isEqualTo(ProcessHandle.current().pid());
                });
        assertThat(path).as("removed at the stop").doesNotExist();
    }

    @Test
    void aHandlerTakingAnInetSocketAddressIsRefusedOnAUnixListener() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.address=unix:" + this.directory.resolve("echo.sock"))
                .run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class))
                        .hasMessageContaining("takes an InetSocketAddress, but its listener is on a Unix domain socket"));
    }

    @Test
    void badPermissionsAPortAndAnEmptyPathFailNamingTheProperty() {
        String address = "sockstate.listeners.who.address=unix:" + this.directory.resolve("who.sock");
        ApplicationContextRunner who = this.runner.withUserConfiguration(WhoConfiguration.class);
        who.withPropertyValues(address, "sockstate.listeners.who.unix-permissions=rwxrwxrwz").run((context) -> assertThat(
                StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                .hasToString("sockstate.listeners.who.unix-permissions"));
        who.withPropertyValues(address, "sockstate.listeners.who.port=7000").run((context) -> assertThat(
                StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                .hasToString("sockstate.listeners.who.port"));
        who.withPropertyValues("sockstate.listeners.who.address=unix:").run((context) -> assertThat(
                StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                .hasToString("sockstate.listeners.who.address"));
        who.withPropertyValues("sockstate.listeners.who.address=unix:" + this.directory.resolve("x".repeat(120))).run((context) -> assertThat(
                StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                .hasToString("sockstate.listeners.who.address"));
    }

    @Configuration(proxyBeanMethods = false)
    static class WhoConfiguration {

        @Bean
        Who who() {
            return new Who();
        }
    }

    @SocketHandler("who")
    static class Who {

        final CompletableFuture<SocketAddress> peer = new CompletableFuture<>();

        final CompletableFuture<PeerCredentials> credentials = new CompletableFuture<>();

        @OnOpen
        void open(SocketAddress peer, PeerCredentials credentials, Connection connection) {
            this.peer.complete(peer);
            this.credentials.complete(credentials);
        }

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }
}

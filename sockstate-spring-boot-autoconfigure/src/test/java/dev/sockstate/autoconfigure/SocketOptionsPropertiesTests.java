package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.SocketOptions.KeepAlive;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.engine.SocketServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The socket options of listeners and clients as properties: mapped onto the runtime's settings (whole
 * seconds where the option counts seconds), refused naming the property where they do not fit or the
 * backend has not the option, and carried by the connections a real listener accepts, as {@code ss} shows
 * them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketOptionsPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s");

    private final String[] echoOnLoopback = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0" };

    @Test
    void everySocketOptionOfAListenerIsMappedToItsSettingsWithSecondsWhereTheOptionCountsSeconds() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.auto-startup=false", "sockstate.listeners.echo.send-buffer-size=256KB",
                        "sockstate.listeners.echo.keep-alive.idle=30", "sockstate.listeners.echo.keep-alive.interval=5s",
                        "sockstate.listeners.echo.keep-alive.count=4", "sockstate.listeners.echo.user-timeout=7s",
                        "sockstate.listeners.echo.linger=0", "sockstate.listeners.echo.not-sent-low-watermark=16KB",
                        "sockstate.listeners.echo.traffic-class=40", "sockstate.listeners.echo.fast-open-queue=32")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ListenerSettings echo = context.getBean(SocketServer.class).listenerSettings().get(0);
                    assertThat(echo.connection().socketOptions()).isEqualTo(new SocketOptions(true, 0, 256 * 1024,
                            KeepAlive.of(Duration.ofSeconds(30), Duration.ofSeconds(5), 4), Duration.ofSeconds(7), Duration.ZERO,
                            16 * 1024, 40));
                    assertThat(echo.fastOpenQueue()).isEqualTo(32);
                });
    }

    @Test
    void aClientsSocketOptionsAreMappedAsAListenersAre() {
        this.runner.withPropertyValues("sockstate.auto-startup=false", "sockstate.clients.cache.address=127.0.0.1:6379",
                "sockstate.clients.cache.keep-alive.enabled=true", "sockstate.clients.cache.linger=3",
                "sockstate.clients.cache.send-buffer-size=64KB").run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClientSettings cache = context.getBean(SocketServer.class).clientSettings().get(0);
                    SocketOptions options = cache.connection().socketOptions();
                    assertThat(options.keepAlive()).as("on, with the system's timing").isEqualTo(KeepAlive.SYSTEM_TIMING);
                    assertThat(options.linger()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(options.sendBufferSize()).isEqualTo(64 * 1024);
                });
    }

    @Test
    void aKeepAliveTurnedOffWithItsTimingSetFailsNamingTheProperty() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.listeners.echo.keep-alive.enabled=false", "sockstate.listeners.echo.keep-alive.idle=30")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((ex) -> {
                            assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.keep-alive.enabled");
                            assertThat(ex.getMessage()).contains("Keep-alive is off, yet its idle, interval or count is set");
                        }));
    }

    @Test
    void aKeepAliveThatIsNotWholeSecondsFailsNamingTheProperty() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.listeners.echo.keep-alive.idle=1500ms")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((ex) -> {
                            assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.keep-alive");
                            assertThat(ex.getMessage()).contains("whole seconds from 1 to 32767");
                        }));
    }

    @Test
    void anOptionTheBackendHasNotFailsTheStartNamingThePropertyAndTheBackend() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.backend=nio", "sockstate.listeners.echo.user-timeout=5s")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((ex) -> {
                            assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.user-timeout");
                            assertThat(ex.getValue()).isEqualTo(Duration.ofSeconds(5));
                            assertThat(ex.getMessage()).contains("The nio backend cannot set TCP_USER_TIMEOUT: the JDK's socket channels"
                                    + " have no TCP_USER_TIMEOUT.");
                        }));
    }

    @Test
    void theConnectionsOfARealListenerCarryItsKeepAliveAndSendBufferAsSsShowsThem() {
        String ss = requireOnPath("ss");
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.listeners.echo.keep-alive.idle=30", "sockstate.listeners.echo.send-buffer-size=256KB")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    int port = context.getBean(SocketServer.class).listener("echo").portNumber();
                    try (Socket peer = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
                        peer.setSoTimeout(5000);
                        peer.getOutputStream().write('x');
                        assertThat(peer.getInputStream().read()).isEqualTo('x');
                        String shown = run(ss, "-tnoem", "state", "established", "( sport = :" + port + " )");
                        Matcher keepAlive = Pattern.compile("timer:\\(keepalive,(\\d+)sec").matcher(shown);
                        assertThat(keepAlive.find()).as("a keep-alive timer in\n" + shown).isTrue();
                        assertThat(Integer.parseInt(keepAlive.group(1))).as("seconds to the first probe").isBetween(20, 30);
                        Matcher sendBuffer = Pattern.compile("tb(\\d+)").matcher(shown);
                        assertThat(sendBuffer.find()).as("the send buffer in\n" + shown).isTrue();
                        assertThat(Integer.parseInt(sendBuffer.group(1))).as("the send buffer (Linux doubles what it is given)")
                                .isGreaterThanOrEqualTo(256 * 1024);
                    }
                });
    }

    /** @return the tool's path; skipped where it is missing, failed in CI, which installs it */
    private static String requireOnPath(String tool) {
        String found = List.of(System.getenv().getOrDefault("PATH", "/usr/bin").split(":")).stream()
                .map((dir) -> Path.of(dir, tool)).filter(Files::isExecutable).map(Path::toString).findFirst()
                .orElse(Files.isExecutable(Path.of("/usr/sbin", tool)) ? "/usr/sbin/" + tool : null);
        if (System.getenv("CI") != null) {
            assertThat(found).as(tool + " (iproute2, which CI installs)").isNotNull();
        }
        assumeTrue(found != null && System.getProperty("os.name").startsWith("Linux"), tool + " is not installed");
        return found;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return output;
    }
}

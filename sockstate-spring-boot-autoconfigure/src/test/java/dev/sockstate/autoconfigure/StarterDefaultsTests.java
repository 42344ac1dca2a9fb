package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.engine.SocketServer;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What a Spring Boot user gets without asking, and what they must say: the layout (a port per
 * worker, connections level-triggered persistent), no server without a listener, a listener's port
 * required, a shutdown that fits its phase, and the wiretap when asked for.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StarterDefaultsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s");

    private final String[] echoOnLoopback = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0" };

    @Test
    void byDefaultEachWorkerHasAPortAndTcpConnectionsStayRegisteredLevelTriggeredWhileASharedPortIsAChoice() {
        ApplicationContextRunner two = this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues(this.echoOnLoopback).withPropertyValues("sockstate.workers.threads=2");
        two.run((context) -> {
            SocketServer server = context.getBean(SocketServer.class);
            assertThat(server.workerGroupSettings().get(0).notificationPorts()).isEqualTo(2);
            assertThat(server.listener("echo").trigger()).isEqualTo(Trigger.LEVEL_PERSISTENT);
            assertThat(server.listenerSettings("echo").connection().abortPendingWriteBytes()).as("a listener's abort limit unless set")
                    .isEqualTo(64L * 1024 * 1024);
            assertEchoes(context, "persistent");
        });
        two.withPropertyValues("sockstate.listeners.echo.handler-executor=application").run((context) -> {
            assertThat(context.getBean(SocketServer.class).listener("echo").trigger())
                    .as("a persistent registration would notify again while the executor runs the handler")
                    .isEqualTo(Trigger.LEVEL_ONESHOT);
            assertEchoes(context, "executor");
        });
        two.withPropertyValues("sockstate.workers.port-per-worker=false").run((context) -> {
            SocketServer server = context.getBean(SocketServer.class);
            assertThat(server.workerGroupSettings().get(0).notificationPorts()).isOne();
            assertThat(server.listener("echo").trigger()).as("the reference's model: workers share one port").isEqualTo(Trigger.LEVEL_ONESHOT);
            assertEchoes(context, "shared");
        });
    }


    @Test
    void withoutAListenerOrAHandlerNoServerNorAnyOfItsBeansExistAndTheConditionReportSaysWhy() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class,
                dev.sockstate.autoconfigure.message.SockstateMessageAutoConfiguration.class)).run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(SocketServer.class).doesNotHaveBean(SocketServerLifecycle.class)
                            .doesNotHaveBean(dev.sockstate.port.Backend.class).doesNotHaveBean(dev.sockstate.server.MessageMapper.class);
                    ConditionOutcome outcome = ConditionEvaluationReport.get(context.getBeanFactory()).getConditionAndOutcomesBySource()
                            .get(SockstateAutoConfiguration.class.getName()).stream()
                            .filter((conditionAndOutcome) -> !conditionAndOutcome.getOutcome().isMatch()).findFirst().orElseThrow()
                            .getOutcome();
                    assertThat(outcome.getMessage()).contains("no listener is configured under sockstate.listeners");
                });
    }


    @Test
    void aListenerWithoutAPortFailsStartupNamingThePropertyAndHowToAskForAnEphemeralPort() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.address=127.0.0.1")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class)).satisfies((ex) -> {
                    assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.port");
                    assertThat(ex.getReason()).contains("It must be set").contains("0 for an ephemeral one");
                }));
    }


    @Test
    void aShutdownTimeoutAsLongAsTheShutdownPhaseFailsStartupNamingBoth() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.shutdown.timeout=30s")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class)).satisfies((ex) -> {
                    assertThat(ex.getName()).isEqualTo("sockstate.shutdown.timeout");
                    assertThat(ex.getReason()).contains("spring.lifecycle.timeout-per-shutdown-phase (PT30S)").contains("at most PT25S");
                }));
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.shutdown.timeout=26s")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getReason())
                        .as("just under the phase leaves the workers no time").contains("at most PT25S"));
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.shutdown.timeout=25s").run((context) -> assertThat(context).hasNotFailed());
        assertThat(SocketServerLifecycle.workersWithin(Duration.ofSeconds(30), Duration.ofSeconds(25))).isEqualTo(Duration.ofMillis(2500));
        assertThat(SocketServerLifecycle.workersWithin(Duration.ofSeconds(30), Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(5));
        assertThat(SocketServerLifecycle.workersWithin(Duration.ofSeconds(2), Duration.ofMillis(1500))).isEqualTo(Duration.ofMillis(250));
    }


    @Test
    void aWiretappedListenerLogsItsConnectionsBytesAtDebugOnItsOwnLogger() {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger("dev.sockstate.wiretap.echo");
        java.util.List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler recording = new java.util.logging.Handler() {

            @Override
            public void publish(java.util.logging.LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.setLevel(java.util.logging.Level.FINE);
        logger.addHandler(recording);
        try {
            this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                    .withPropertyValues("sockstate.listeners.echo.wiretap=true").run((context) -> {
                        assertEchoes(context, "tapped");
                        assertThat(lines).anySatisfy((line) -> assertThat(line).contains("READ 6 B\n0000  74 61 70 70 65 64"));
                        assertThat(lines).anySatisfy((line) -> assertThat(line).contains("WRITE 6 B").endsWith("|tapped|"));
                    });
        }
        finally {
            logger.removeHandler(recording);
            logger.setLevel(null);
        }
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues("sockstate.listeners.echo.protocol=udp", "sockstate.listeners.echo.wiretap=true")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                        .isEqualTo("sockstate.listeners.echo.wiretap"));
    }


    private static void assertEchoes(AssertableApplicationContext context, String text) throws Exception {
        int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
            assertThat(new String(client.getInputStream().readNBytes(text.length()), StandardCharsets.UTF_8)).isEqualTo(text);
        }
    }
}

package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SockstateAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s");

    private final String[] echoOnLoopback = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0" };

    @Test
    void aListenerWithAHandlerBeanServesOnTheEphemeralPortPublishedInTheEnvironment() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(SocketServer.class).hasSingleBean(SocketServerLifecycle.class);
                    int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
                    assertThat(port).isEqualTo(context.getBean(SocketServer.class).listener("echo").portNumber()).isPositive();
                    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        client.setSoTimeout(5000);
                        client.getOutputStream().write("hello".getBytes(StandardCharsets.UTF_8));
                        assertThat(new String(client.getInputStream().readNBytes(5), StandardCharsets.UTF_8)).isEqualTo("hello");
                    }
                    assertThat(context.getBean(TestHandlers.Echo.class).opened).hasValue(1);
                });
    }

    @Test
    void methodsCalledAsAConnectionEndsAreGivenThePeersAddressAfterAResetAndAfterTheClose() {
        this.runner.withUserConfiguration(TestHandlers.PeerAtTheEndConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
                    TestHandlers.PeerAtTheEnd handler = context.getBean(TestHandlers.PeerAtTheEnd.class);
                    java.net.SocketAddress reset;
                    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        reset = client.getLocalSocketAddress();
                        client.setSoTimeout(5000);
                        client.getOutputStream().write('x');
                        assertThat(client.getInputStream().read()).isEqualTo('x');
                        // A reset, not a FIN: the server's socket then tells no peer address.
                        client.setSoLinger(true, 0);
                    }
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (handler.closed.isEmpty() && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(handler.failed).as("the address @OnError took after the reset").containsExactly(reset);
                    assertThat(handler.closed).as("the address @OnClose took").containsExactly(reset);
                });
    }

    @Test
    void annotatedMethodsGetTextRepliesHangupsAndDatagrams() {
        this.runner.withUserConfiguration(TestHandlers.AllConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.listeners.upper.address=127.0.0.1", "sockstate.listeners.upper.port=0",
                        "sockstate.listeners.udp.address=127.0.0.1", "sockstate.listeners.udp.port=0", "sockstate.listeners.udp.protocol=udp")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    int upper = context.getEnvironment().getProperty("local.sockstate.upper.port", Integer.class);
                    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), upper)) {
                        client.setSoTimeout(5000);
                        client.getOutputStream().write("shout".getBytes(StandardCharsets.UTF_8));
                        assertThat(new String(client.getInputStream().readNBytes(5), StandardCharsets.UTF_8)).isEqualTo("SHOUT");
                        client.shutdownOutput();
                        assertThat(new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("bye");
                    }
                    int udp = context.getEnvironment().getProperty("local.sockstate.udp.port", Integer.class);
                    try (DatagramSocket client = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                        client.setSoTimeout(5000);
                        client.send(new DatagramPacket(new byte[] { 4, 2 }, 2, new InetSocketAddress(InetAddress.getLoopbackAddress(), udp)));
                        DatagramPacket reply = new DatagramPacket(new byte[8], 8);
                        client.receive(reply);
                        assertThat(reply.getLength()).isEqualTo(2);
                        assertThat(reply.getData()[1]).isEqualTo((byte) 2);
                    }
                });
    }

    @Test
    void everyListenerPropertyReachesTheRuntime() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.listeners.echo.backlog=77",
                        "sockstate.listeners.echo.trigger=level-persistent", "sockstate.listeners.echo.group=poll",
                        "sockstate.groups.poll.threads=1", "sockstate.groups.poll.thread-name-prefix=poller-",
                        "sockstate.groups.poll.read-buffer-size=16KB", "sockstate.groups.poll.yield-before-wait=true",
                        "sockstate.listeners.echo.events=hangup,in",
                        "sockstate.listeners.echo.reuse-address=false", "sockstate.listeners.echo.reuse-port=true",
                        "sockstate.listeners.echo.tcp-no-delay=false", "sockstate.listeners.echo.receive-buffer-size=128KB",
                        "sockstate.listeners.echo.max-connections=12", "sockstate.listeners.echo.idle-timeout=45s",
                        "sockstate.listeners.echo.max-pending-write-bytes=1MB", "sockstate.listeners.echo.abort-pending-write-bytes=8MB",
                        "sockstate.batch-size=32",
                        "sockstate.dequeue-timeout=250ms")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketServer server = context.getBean(SocketServer.class);
                    ListenerSettings echo = server.listenerSettings().get(0);
                    assertThat(echo.address()).isEqualTo(InetAddress.getByName("127.0.0.1"));
                    assertThat(echo.backlog()).isEqualTo(77);
                    assertThat(echo.trigger()).isEqualTo(Trigger.LEVEL_PERSISTENT);
                    assertThat(echo.connection().group()).isEqualTo("poll");
                    assertThat(echo.events()).isEqualTo(Events.IN | Events.HANGUP);
                    assertThat(echo.reuseAddress()).isFalse();
                    assertThat(echo.reusePort()).isTrue();
                    assertThat(echo.connection().socketOptions().tcpNoDelay()).isFalse();
                    assertThat(echo.connection().socketOptions().receiveBufferSize()).isEqualTo(128 * 1024);
                    assertThat(echo.maxConnections()).isEqualTo(12);
                    assertThat(echo.connection().idleTimeout()).isEqualTo(Duration.ofSeconds(45));
                    assertThat(echo.connection().maxPendingWriteBytes()).isEqualTo(1024 * 1024);
                    assertThat(echo.connection().abortPendingWriteBytes()).isEqualTo(8L * 1024 * 1024);
                    assertThat(echo.protocol()).isEqualTo(Protocol.TCP);
                    WorkerGroupSettings poll = server.workerGroupSettings().get(1);
                    assertThat(poll.name()).isEqualTo("poll");
                    assertThat(poll.workers()).isEqualTo(1);
                    assertThat(poll.threadNamePrefix()).isEqualTo("poller-");
                    assertThat(poll.readBufferSize()).isEqualTo(16 * 1024);
                    assertThat(poll.batchSize()).isEqualTo(32);
                    assertThat(poll.dequeueTimeout()).isEqualTo(Duration.ofMillis(250));
                    assertThat(poll.yieldBeforeWait()).isTrue();
                    assertThat(server.workerGroupSettings().get(0).workers()).isEqualTo(2);
                    assertThat(server.workerGroupSettings().get(0).yieldBeforeWait()).as("the default").isFalse();
                    assertThat(Thread.getAllStackTraces().keySet()).anyMatch((thread) -> thread.getName().equals("poller-poll-1"));
                });
    }

    @Test
    void theShutdownIsGracefulInTheWebServersPhaseWithItsTimeoutUnlessTurnedOff() {
        ApplicationContextRunner echo = this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues(this.echoOnLoopback);
        echo.withPropertyValues("sockstate.shutdown.timeout=7s").run((context) -> {
            SocketServerLifecycle lifecycle = context.getBean(SocketServerLifecycle.class);
            assertThat(lifecycle.shutdownTimeout()).isEqualTo(Duration.ofSeconds(7));
            assertThat(lifecycle.getPhase()).isEqualTo(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
        });
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
                .withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                        "spring.lifecycle.timeout-per-shutdown-phase=12s")
                .run((context) -> assertThat(context.getBean(SocketServerLifecycle.class).shutdownTimeout())
                        .as("the shutdown phase's timeout less room to close, unless told otherwise").isEqualTo(Duration.ofSeconds(9)));
        assertThat(SocketServerLifecycle.drainWithin(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(25));
        assertThat(SocketServerLifecycle.drainWithin(Duration.ofSeconds(8))).isEqualTo(Duration.ofSeconds(6));
        echo.withPropertyValues("sockstate.shutdown.graceful=false", "sockstate.shutdown.timeout=7s")
                .run((context) -> assertThat(context.getBean(SocketServerLifecycle.class).shutdownTimeout()).isZero());
    }

    @Test
    void theExclusiveEdgeModeIsAListenerProperty() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.listeners.echo.exclusive-edge=true")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ListenerSettings echo = context.getBean(SocketServer.class).listenerSettings().get(0);
                    assertThat(echo.exclusiveEdge()).isTrue();
                    assertThat(echo.trigger()).isEqualTo(Trigger.EDGE_PERSISTENT);
                    int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
                    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        client.setSoTimeout(5000);
                        client.getOutputStream().write("edge".getBytes(StandardCharsets.UTF_8));
                        assertThat(new String(client.getInputStream().readNBytes(4), StandardCharsets.UTF_8)).isEqualTo("edge");
                    }
                });
        assertInvalid("sockstate.listeners.echo.exclusive-edge=true,sockstate.listeners.echo.trigger=level-oneshot",
                "sockstate.listeners.echo.trigger", Trigger.LEVEL_ONESHOT);
    }


    @Test
    void aPortPerWorkerIsAWorkerGroupPropertyThatLetsPersistentTriggersUseManyWorkers() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.workers.threads=2", "sockstate.workers.port-per-worker=true",
                        "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.listeners.echo.trigger=edge-persistent")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    WorkerGroupSettings group = context.getBean(SocketServer.class).workerGroupSettings().get(0);
                    assertThat(group.portPerWorker()).isTrue();
                    assertThat(group.notificationPorts()).isEqualTo(2);
                    int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
                    for (int i = 0; i < 4; i++) {
                        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                            client.setSoTimeout(5000);
                            client.getOutputStream().write("pinned".getBytes(StandardCharsets.UTF_8));
                            assertThat(new String(client.getInputStream().readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("pinned");
                        }
                    }
                });
        assertInvalid("sockstate.workers.threads=2,sockstate.workers.port-per-worker=false,sockstate.listeners.echo.trigger=edge-persistent",
                "sockstate.listeners.echo.trigger", Trigger.EDGE_PERSISTENT);
    }

    @Test
    void theWorkerCountDefaultsToTheAvailableProcessors() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
                .withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .run((context) -> assertThat(context.getBean(SocketServer.class).workerGroupSettings().get(0).workers())
                        .isEqualTo(Runtime.getRuntime().availableProcessors()));
    }

    @Test
    void itBacksOffWhenDisabled() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.enabled=false", "sockstate.listeners.echo.port=0")
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(SocketServer.class));
    }

    @Test
    void itBacksOffWithoutJna() {
        this.runner.withClassLoader(new FilteredClassLoader("com.sun.jna"))
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(SocketServer.class));
    }

    @Test
    void itBacksOffWhenTheBackendCannotRunAndNoListenerIsConfiguredAndTheConditionReportSaysWhy() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues("sockstate.backend=kqueue").run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(SocketServer.class);
            ConditionOutcome outcome = ConditionEvaluationReport.get(context.getBeanFactory()).getConditionAndOutcomesBySource()
                    .get(SockstateAutoConfiguration.class.getName()).stream()
                    .filter((conditionAndOutcome) -> !conditionAndOutcome.getOutcome().isMatch()).findFirst().orElseThrow()
                    .getOutcome();
            assertThat(outcome.getMessage()).contains("socket notification backend kqueue").contains("Unknown backend 'kqueue'");
        });
    }

    @Test
    void anUnknownBackendWithListenersFailsNamingTheProperty() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.backend=kqueue", "sockstate.listeners.echo.port=0")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class)).satisfies((ex) -> {
                    assertThat(ex.getName()).isEqualTo("sockstate.backend");
                    assertThat(ex.getValue()).isEqualTo("kqueue");
                    assertThat(ex.getMessage()).contains("Unknown backend 'kqueue'");
                }));
    }

    @Test
    void userBeansReplaceTheAutoConfiguredOnes() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class, CustomizerConfiguration.class)
                .withPropertyValues(this.echoOnLoopback)
                .run((context) -> {
                    SocketServer server = context.getBean(SocketServer.class);
                    assertThat(server.workerGroupSettings().get(0).workers()).isEqualTo(3);
                    assertThat(server.listenerSettings().get(0).maxConnections()).isEqualTo(5);
                });
    }

    @Test
    void theTopLevelHandlerExecutorIsTheDefaultOfEveryListenerThatNamesNone() {
        this.runner.withUserConfiguration(TestHandlers.AllConfiguration.class)
                .withPropertyValues("sockstate.handler-executor=application", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                        "sockstate.listeners.upper.address=127.0.0.1", "sockstate.listeners.upper.port=0", "sockstate.listeners.upper.handler-executor=none",
                        "sockstate.listeners.udp.address=127.0.0.1", "sockstate.listeners.udp.port=0", "sockstate.listeners.udp.protocol=udp")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketServer server = context.getBean(SocketServer.class);
                    Object application = context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
                    assertThat(server.listenerSettings("echo").connection().handlerExecutor()).isSameAs(application);
                    assertThat(server.listenerSettings("udp").connection().handlerExecutor()).isSameAs(application);
                    assertThat(server.listenerSettings("upper").connection().handlerExecutor()).as("the listener's own wins").isNull();
                });
    }

    @Test
    void invalidValuesFailStartupNamingThePropertyAndTheValue() {
        assertInvalid("sockstate.handler-executor=nosuchexecutor", "sockstate.handler-executor", "nosuchexecutor");
        assertInvalid("sockstate.listeners.echo.port=70000", "sockstate.listeners.echo.port", 70000);
        assertInvalid("sockstate.listeners.echo.backlog=0", "sockstate.listeners.echo.backlog", 0);
        assertInvalid("sockstate.listeners.echo.max-connections=-1", "sockstate.listeners.echo.max-connections", -1);
        assertInvalid("sockstate.listeners.echo.group=fast", "sockstate.listeners.echo.group", "fast");
        assertInvalid("sockstate.workers.port-per-worker=false,sockstate.listeners.echo.trigger=edge-persistent",
                "sockstate.listeners.echo.trigger", Trigger.EDGE_PERSISTENT);
        assertInvalid("sockstate.listeners.echo.events=hangup", "sockstate.listeners.echo.events", null);
        assertInvalid("sockstate.listeners.echo.events=in", "sockstate.listeners.echo.events", null);
        assertInvalid("sockstate.listeners.echo.handler-executor=nosuchexecutor", "sockstate.listeners.echo.handler-executor",
                "nosuchexecutor");
        assertInvalid("sockstate.listeners.echo.idle-timeout=-1s", "sockstate.listeners.echo.idle-timeout", Duration.ofSeconds(-1));
        assertInvalid("sockstate.workers.threads=0", "sockstate.workers.threads", 0);
        assertInvalid("sockstate.workers.read-buffer-size=1B", "sockstate.workers.read-buffer-size", null);
        assertInvalid("sockstate.batch-size=0", "sockstate.batch-size", 0);
        assertInvalid("sockstate.dequeue-timeout=0s", "sockstate.dequeue-timeout", Duration.ZERO);
        assertInvalid("sockstate.groups.default.threads=1", "sockstate.groups.default", "default");
    }

    private void assertInvalid(String properties, String name, Object value) {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .withPropertyValues(properties.split(",")).run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context, InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo(name);
                    if (value != null) {
                        assertThat(failure.getValue()).isEqualTo(value);
                    }
                });
    }

    @Test
    void anUnparsableValueFailsTheBinding() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.trigger=sometimes")
                .run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("sometimes"));
    }

    @Test
    void aListenerWithoutAHandlerFailsStartup() {
        this.runner.withPropertyValues("sockstate.listeners.lonely.port=0").run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class))
                .hasMessage("Listener 'lonely' has no handler").satisfies((ex) -> assertThat(ex.action()).contains("@SocketHandler(\"lonely\")")));
    }

    @Test
    void withLazyInitializationAListenerWithoutAHandlerStillFailsStartup() {
        this.runner.withInitializer((context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
                .withPropertyValues("sockstate.listeners.lonely.port=0", "sockstate.listeners.lonely.address=127.0.0.1")
                .run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class))
                        .hasMessage("Listener 'lonely' has no handler"));
    }

    @Test
    void aHandlerForAnUnknownListenerFailsStartup() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class))
                        .hasMessage("Bean 'echoHandler' handles listener 'echo', which is not configured"));
    }

    @Test
    void twoHandlersForOneListenerFailStartup() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class, SecondEchoConfiguration.class)
                .withPropertyValues(this.echoOnLoopback)
                .run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class)).hasMessageContaining("Listener 'echo' has two handlers"));
    }

    @Test
    void anUnsupportedSignatureFailsStartupNamingTheMethod() {
        this.runner.withUserConfiguration(BadSignatureConfiguration.class).withPropertyValues(this.echoOnLoopback)
                .run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class))
                        .hasMessageContaining("Method BadSignature.handle of bean 'badSignature', annotated @OnData,"
                                + " has a parameter of unsupported type Integer")
                        .satisfies((ex) -> assertThat(ex.action()).contains("Connection, ByteBuffer, byte[], String")));
    }

    @Test
    void aTcpHandlerOnAUdpListenerFailsStartup() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.protocol=udp", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0")
                .run((context) -> assertThat(StartupFailures.find(context, SocketHandlerDefinitionException.class)).hasMessageContaining("handles UDP listener 'echo'"));
    }

    @Test
    void aPortInUseFailsStartupNamingTheListenerAndThePort() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                    .withPropertyValues("sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.reuse-address=false",
                            "sockstate.listeners.echo.port=" + taken.getLocalPort())
                    .run((context) -> assertThat(context).hasFailed().getFailure().hasRootCauseInstanceOf(NativeIoException.class)
                            .hasStackTraceContaining("Listener 'echo' could not bind to 127.0.0.1 port " + taken.getLocalPort()));
        }
    }

    @Test
    void blockingHandlersRunOnTheApplicationTaskExecutorOneCallPerConnectionAtATime() {
        this.runner.withUserConfiguration(TestHandlers.SlowConfiguration.class)
                .withPropertyValues("sockstate.listeners.slow.address=127.0.0.1", "sockstate.listeners.slow.port=0", "sockstate.listeners.slow.handler-executor=application",
                        "sockstate.workers.threads=1")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    int port = context.getEnvironment().getProperty("local.sockstate.slow.port", Integer.class);
                    try (Socket first = new Socket(InetAddress.getLoopbackAddress(), port);
                            Socket second = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        first.setSoTimeout(5000);
                        second.setSoTimeout(5000);
                        long start = System.nanoTime();
                        for (int i = 0; i < 5; i++) {
                            first.getOutputStream().write('a');
                            second.getOutputStream().write('b');
                            Thread.sleep(20);
                        }
                        InputStream firstIn = first.getInputStream();
                        InputStream secondIn = second.getInputStream();
                        int read = 0;
                        while (read < 5) {
                            int n = firstIn.read(new byte[5]);
                            read += n;
                        }
                        read = 0;
                        while (read < 5) {
                            read += secondIn.read(new byte[5]);
                        }
                        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("one blocked worker did not serialise both")
                                .isLessThan(Duration.ofSeconds(5));
                    }
                    assertThat(context.getBean(TestHandlers.Slow.class).overlaps).hasValue(0);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerConfiguration {

        @Bean
        WorkerGroupCustomizer threeThreads() {
            return (group) -> new WorkerGroupSettings(group.name(), 3, group.batchSize(), group.dequeueTimeout(),
                    group.readBufferSize(), group.threadNamePrefix());
        }

        @Bean
        ListenerCustomizer fiveConnections() {
            return (name, listener) -> listener.maxConnections(5);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondEchoConfiguration {

        @Bean
        TestHandlers.Echo secondEcho() {
            return new TestHandlers.Echo();
        }
    }

    @SocketHandler("echo")
    static class BadSignature {

        @OnData
        void handle(Integer number) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadSignatureConfiguration {

        @Bean
        BadSignature badSignature() {
            return new BadSignature();
        }
    }
}

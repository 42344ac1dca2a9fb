package dev.sockstate.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.spring.handler.OnClose;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code sockstate.observations.enabled}: an observation per handler call, over real sockets. */
class HandlerObservationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateObservationAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(Handlers.class)
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s", "sockstate.listeners.words.address=127.0.0.1", "sockstate.listeners.words.port=0",
                    "sockstate.listeners.words.framing.type=line", "sockstate.listeners.ticks.address=127.0.0.1", "sockstate.listeners.ticks.port=0",
                    "sockstate.listeners.ticks.protocol=udp");

    @Test
    void everyCallOfAConnectionIsObservedWithItsListenerEventAndPeer() {
        this.runner.withPropertyValues("sockstate.observations.enabled=true").run((context) -> {
            Stopped stopped = context.getBean(Stopped.class);
            int port = context.getEnvironment().getProperty("local.sockstate.words.port", Integer.class);
            int clientPort;
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                clientPort = client.getLocalPort();
                client.setSoTimeout(5000);
                client.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
                assertThat(new String(client.getInputStream().readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("HELLO\n");
            }
            List<SocketHandlerObservationContext> calls = stopped.take(4);
            assertThat(calls).extracting(SocketHandlerObservationContext::getContextualName).containsExactly("words open",
                    "words data", "words hangup", "words close");
            SocketHandlerObservationContext data = calls.get(1);
            assertThat(data.getName()).isEqualTo("sockstate.handler.call");
            assertThat(data.getLowCardinalityKeyValues()).contains(KeyValue.of("listener", "words"),
                    KeyValue.of("event", "data"), KeyValue.of("network.transport", "tcp"));
            assertThat(data.getHighCardinalityKeyValues()).contains(KeyValue.of("network.peer.address", "127.0.0.1"),
                    KeyValue.of("network.peer.port", Integer.toString(clientPort)));
            assertThat(data.getLowCardinalityKeyValues()).as("the peer never becomes a meter tag")
                    .noneMatch((keyValue) -> keyValue.getKey().startsWith("network.peer"));
            assertThat(data.getError()).isNull();
            assertThat(context.getBean(Handlers.Words.class).observedInScope).as("the handler ran inside its observation's scope")
                    .isTrue();
        });
    }

    @Test
    void aCallThatThrowsIsObservedWithItsError() {
        this.runner.withPropertyValues("sockstate.observations.enabled=true").run((context) -> {
            Stopped stopped = context.getBean(Stopped.class);
            int port = context.getEnvironment().getProperty("local.sockstate.words.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("boom\n".getBytes(StandardCharsets.UTF_8));
                assertThat(client.getInputStream().read()).as("closed for the failure").isEqualTo(-1);
            }
            SocketHandlerObservationContext data = stopped.take(2).get(1);
            assertThat(data.getContextualName()).isEqualTo("words data");
            assertThat(data.getError()).isInstanceOf(IllegalArgumentException.class).hasMessage("boom");
        });
    }

    @Test
    void aDatagramIsObservedWithItsSender() {
        this.runner.withPropertyValues("sockstate.observations.enabled=true").run((context) -> {
            Stopped stopped = context.getBean(Stopped.class);
            int port = context.getEnvironment().getProperty("local.sockstate.ticks.port", Integer.class);
            try (DatagramSocket client = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                client.send(new DatagramPacket(new byte[] { 1 }, 1, InetAddress.getLoopbackAddress(), port));
                SocketHandlerObservationContext datagram = stopped.take(1).get(0);
                assertThat(datagram.getContextualName()).isEqualTo("ticks datagram");
                assertThat(datagram.getLowCardinalityKeyValues()).contains(KeyValue.of("network.transport", "udp"));
                assertThat(datagram.getHighCardinalityKeyValues())
                        .contains(KeyValue.of("network.peer.port", Integer.toString(client.getLocalPort())));
            }
        });
    }

    @Test
    void peersThatResetAtOnceStillReachTheHandlerAndNoObservationFails() {
        this.runner.withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withPropertyValues("sockstate.observations.enabled=true").run((context) -> {
                    int port = context.getEnvironment().getProperty("local.sockstate.words.port", Integer.class);
                    for (int i = 0; i < 20; i++) {
                        try (Socket client = new Socket()) {
                            client.setSoLinger(true, 0);
                            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                        }
                    }
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Handlers.Words words = context.getBean(Handlers.Words.class);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (words.closed.get() < accepted(registry) || accepted(registry) < 20) {
                        assertThat(System.nanoTime()).as("every accepted connection closed").isLessThan(deadline);
                        Thread.sleep(10);
                    }
                    assertThat((double) words.opened.get()).as("opened, as accepted").isEqualTo(accepted(registry));
                    assertThat(registry.get("sockstate.handler").tag("outcome", "error").functionTimer().count())
                            .as("handler calls that failed").isZero();
                });
    }

    private static double accepted(MeterRegistry registry) {
        return registry.get("sockstate.connections.accepted").counter().count();
    }

    @Test
    void aConventionBeanNamesAndKeysTheObservations() {
        this.runner.withPropertyValues("sockstate.observations.enabled=true")
                .withBean(SocketHandlerObservationConvention.class, () -> new DefaultSocketHandlerObservationConvention() {
                    @Override
                    public String getName() {
                        return "orders.calls";
                    }

                    @Override
                    public KeyValues getHighCardinalityKeyValues(SocketHandlerObservationContext context) {
                        return KeyValues.empty();
                    }
                }).run((context) -> {
                    int port = context.getEnvironment().getProperty("local.sockstate.words.port", Integer.class);
                    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        client.setSoTimeout(5000);
                        client.getOutputStream().write("hi\n".getBytes(StandardCharsets.UTF_8));
                        assertThat(client.getInputStream().readNBytes(3)).hasSize(3);
                    }
                    SocketHandlerObservationContext open = context.getBean(Stopped.class).take(1).get(0);
                    assertThat(open.getName()).isEqualTo("orders.calls");
                    assertThat(open.getHighCardinalityKeyValues()).isEmpty();
                    assertThat(open.getLowCardinalityKeyValues()).contains(KeyValue.of("event", "open"));
                });
    }

    @Test
    void withoutThePropertyNothingIsObserved() {
        this.runner.run((context) -> {
            assertThat(context).doesNotHaveBean(SockstateObservationAutoConfiguration.class);
            int port = context.getEnvironment().getProperty("local.sockstate.words.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
                assertThat(client.getInputStream().readNBytes(6)).hasSize(6);
            }
            assertThat(context.getBean(Stopped.class).contexts.poll(200, TimeUnit.MILLISECONDS)).isNull();
        });
    }

    /** Keeps the contexts of the observations that stopped. */
    static final class Stopped implements ObservationHandler<SocketHandlerObservationContext> {

        final BlockingQueue<SocketHandlerObservationContext> contexts = new LinkedBlockingQueue<>();

        @Override
        public void onStop(SocketHandlerObservationContext context) {
            this.contexts.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof SocketHandlerObservationContext;
        }

        List<SocketHandlerObservationContext> take(int count) throws InterruptedException {
            List<SocketHandlerObservationContext> taken = new java.util.ArrayList<>();
            while (taken.size() < count) {
                SocketHandlerObservationContext context = this.contexts.poll(10, TimeUnit.SECONDS);
                assertThat(context).as("observation %d of %d", taken.size() + 1, count).isNotNull();
                taken.add(context);
            }
            return taken;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Handlers {

        @Bean
        Stopped stopped() {
            return new Stopped();
        }

        @Bean
        ObservationRegistry observationRegistry(Stopped stopped) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(stopped);
            return registry;
        }

        @SocketHandler("words")
        static class Words {

            private final ObservationRegistry registry;

            volatile boolean observedInScope;

            final AtomicInteger opened = new AtomicInteger();

            final AtomicInteger closed = new AtomicInteger();

            @OnOpen
            void open() {
                this.opened.incrementAndGet();
            }

            @OnClose
            void close() {
                this.closed.incrementAndGet();
            }

            Words(ObservationRegistry registry) {
                this.registry = registry;
            }

            @OnData
            String upper(String line) {
                this.observedInScope = this.registry.getCurrentObservation() != null;
                if (line.equals("boom")) {
                    throw new IllegalArgumentException("boom");
                }
                return line.toUpperCase(java.util.Locale.ROOT);
            }
        }

        @SocketHandler("ticks")
        static class Ticks {

            @OnDatagram
            void tick(byte[] data) {
            }
        }
    }
}

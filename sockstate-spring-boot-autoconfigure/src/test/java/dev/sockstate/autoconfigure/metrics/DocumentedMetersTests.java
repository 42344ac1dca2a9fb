package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.TlsClients;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The meter table of the reference documentation ({@code docs/appendix-meters.md}) against the meters a
 * running server registers (TCP and UDP listeners, a client): the same names, and each documented type
 * the type registered (a function counter or timer named so).
 */
class DocumentedMetersTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateMetricsAutoConfiguration.class,
                    SockstateAutoConfiguration.class))
            .withUserConfiguration(RegistryConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                    "sockstate.listeners.echo.heartbeat.idle=1m", "sockstate.listeners.echo.heartbeat.ping=PING",
                    "sockstate.listeners.echo.shaping.connection-write=16KB",
                    "sockstate.listeners.ticks.address=127.0.0.1", "sockstate.listeners.ticks.port=0", "sockstate.listeners.ticks.protocol=udp",
                    "sockstate.listeners.secure.address=127.0.0.1", "sockstate.listeners.secure.port=0", "sockstate.listeners.secure.ssl.bundle=server",
                    "sockstate.listeners.secure.ssl.serve-plaintext=true",
                    "sockstate.listeners.proxied.address=127.0.0.1", "sockstate.listeners.proxied.port=0",
                    "sockstate.listeners.proxied.proxy-protocol=v1", "sockstate.listeners.proxied.trusted-proxies=127.0.0.0/8,::1", "sockstate.clients.out.address=127.0.0.1:1",
                    "sockstate.clients.out.reconnect.initial=1s",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key");

    @Test
    void theMeterAppendixNamesEveryMeterRegisteredWithItsType() throws IOException {
        Map<String, String> documented = documented(Files.readString(Path.of("..", "docs", "appendix-meters.md")));
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            // A TLS handshake: its meters are registered as the first happens.
            int secure = context.getEnvironment().getProperty("local.sockstate.secure.port", Integer.class);
            try (SSLSocket client = TlsClients.connect(TlsClients.client(null), secure)) {
                client.startHandshake();
            }
            // A plaintext connection beside TLS: its counter is registered with the first.
            try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), secure)) {
                plain.setSoTimeout(5000);
                plain.getOutputStream().write("plain".getBytes(StandardCharsets.US_ASCII));
                plain.getInputStream().readNBytes(5);
            }
            // A PROXY protocol header: its counter is registered as the first is read.
            int proxied = context.getEnvironment().getProperty("local.sockstate.proxied.port", Integer.class);
            try (Socket balancer = new Socket(InetAddress.getLoopbackAddress(), proxied)) {
                balancer.getOutputStream().write("PROXY UNKNOWN\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            // An echo over its write rate: the time it was throttled is counted as the throttle ends.
            int echo = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), echo)) {
                peer.setSoTimeout(5000);
                peer.getOutputStream().write(new byte[8 * 1024]);
                peer.getInputStream().readNBytes(8 * 1024);
            }
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((meters.find("sockstate.tls.handshake").timer() == null || meters.find("sockstate.proxy.headers").counter() == null
                    || meters.find("sockstate.tls.plaintext").counter() == null
                    || meters.find("sockstate.connections.throttled").counter() == null) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Map<String, String> registered = new TreeMap<>();
            for (Meter meter : context.getBean(MeterRegistry.class).getMeters()) {
                registered.put(meter.getId().getName(), type(meter));
            }
            assertThat(documented.keySet()).as("meters in the appendix's table").isEqualTo(registered.keySet());
            registered.forEach((name, type) -> assertThat(documented.get(name)).as("documented type of %s", name).isEqualTo(type));
        });
    }

    /** @return the meter's type as the appendix names it */
    private static String type(Meter meter) {
        if (meter instanceof FunctionCounter) {
            return "function counter";
        }
        if (meter instanceof FunctionTimer) {
            return "function timer";
        }
        return switch (meter.getId().getType()) {
            case DISTRIBUTION_SUMMARY -> "distribution summary";
            case LONG_TASK_TIMER -> "long task timer";
            default -> meter.getId().getType().name().toLowerCase(Locale.ROOT);
        };
    }

    /** @return the name and type column of each row of the appendix's table: {@code | `name` | type | tags | description |} */
    private static Map<String, String> documented(String appendix) {
        Map<String, String> meters = new TreeMap<>();
        for (String line : appendix.lines().toList()) {
            if (!line.startsWith("| `sockstate.")) {
                continue;
            }
            String[] cells = line.split("\\|");
            Matcher names = Pattern.compile("`([^`]+)`").matcher(cells[1]);
            while (names.find()) {
                meters.put(names.group(1), cells[2].trim());
            }
        }
        return meters;
    }

    @Configuration(proxyBeanMethods = false)
    static class RegistryConfiguration {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @SocketHandler("echo")
        static class Echo {

            @OnData
            byte[] echo(byte[] data) {
                return data;
            }
        }

        @SocketHandler("secure")
        static class Secure {

            @OnData
            byte[] echo(byte[] data) {
                return data;
            }
        }

        @SocketHandler("proxied")
        static class Proxied {

            @OnData
            byte[] echo(byte[] data) {
                return data;
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

package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A listener behind a load balancer, configured in properties: the handler's address parameter is the
 * client the PROXY protocol header names and its ProxyHeader parameter the header, the headers are
 * counted, and values that cannot work fail start-up naming the property.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProxyProtocolPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(WhoAmIConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s", "sockstate.listeners.whoami.address=127.0.0.1",
                    "sockstate.listeners.whoami.port=0");

    @Test
    void theHandlerSeesTheClientAndTheHeaderAndTheHeadersAreCounted() {
        this.runner.withPropertyValues("sockstate.listeners.whoami.proxy-protocol=v1",
                "sockstate.listeners.whoami.trusted-proxies=127.0.0.0/8,::1").run((context) -> {
                    int port = context.getEnvironment().getProperty("local.sockstate.whoami.port", Integer.class);
                    try (Socket balancer = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        balancer.setSoTimeout(5000);
                        balancer.getOutputStream().write(("PROXY TCP4 192.0.2.7 198.51.100.1 51000 " + port + "\r\nwho\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        String reply = new BufferedReader(new InputStreamReader(balancer.getInputStream(), StandardCharsets.US_ASCII))
                                .readLine();
                        assertThat(reply).isEqualTo("who: /192.0.2.7:51000 via 127.0.0.1:" + balancer.getLocalPort());
                    }
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("sockstate.proxy.headers").tag("listener", "whoami").tag("outcome", "accepted").counter().count())
                            .isOne();
                });
    }

    @Test
    void aListenerThatNamesNoTrustedProxiesFailsStartupNamingThePropertyRatherThanBelieveEveryPeer() {
        this.runner.withPropertyValues("sockstate.listeners.whoami.proxy-protocol=v1").run((context) -> {
            InvalidConfigurationPropertyValueException failure = StartupFailures.find(context, InvalidConfigurationPropertyValueException.class);
            assertThat(failure.getName()).isEqualTo("sockstate.listeners.whoami.trusted-proxies");
            assertThat(failure.getReason()).contains("0.0.0.0/0 and ::/0");
        });
    }

    @Test
    void aTrustedProxyThatIsNoAddressFailsStartupNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.whoami.proxy-protocol=any",
                "sockstate.listeners.whoami.trusted-proxies=10.0.0.1/8").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.whoami.trusted-proxies");
                    assertThat(failure.getReason()).contains("'10.0.0.1/8' has bits set past its prefix length 8");
                });
    }

    @Test
    void trustedProxiesWithoutTheProtocolAndTheProtocolOnUdpFailStartup() {
        this.runner.withPropertyValues("sockstate.listeners.whoami.trusted-proxies=10.0.0.0/8")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                        .isEqualTo("sockstate.listeners.whoami.trusted-proxies"));
        this.runner.withPropertyValues("sockstate.listeners.whoami.proxy-protocol=v2", "sockstate.listeners.whoami.proxy-header-max-size=100B")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                        .isEqualTo("sockstate.listeners.whoami.proxy-header-max-size"));
        this.runner.withPropertyValues("sockstate.listeners.whoami.proxy-protocol=v2", "sockstate.listeners.whoami.proxy-header-timeout=0s")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                        .isEqualTo("sockstate.listeners.whoami.proxy-header-timeout"));
    }

    @Configuration(proxyBeanMethods = false)
    static class WhoAmIConfiguration {

        @Bean
        WhoAmI whoAmI() {
            return new WhoAmI();
        }

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @SocketHandler("whoami")
    static class WhoAmI {

        @OnData
        String answer(String text, InetSocketAddress client, ProxyHeader header) {
            InetSocketAddress balancer = (InetSocketAddress) header.proxyAddress();
            return text.strip() + ": " + client + " via " + balancer.getAddress().getHostAddress() + ":" + balancer.getPort() + "\n";
        }
    }
}

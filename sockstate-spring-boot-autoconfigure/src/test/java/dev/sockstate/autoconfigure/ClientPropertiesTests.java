package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.client.Backoff;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientHeartbeat;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code sockstate.clients.<name>.*} turned into the runtime's client settings, a {@code SocketClient}
 * bean per client, and bad values failing start-up naming their property. The server is built, not
 * started (no backend needs to answer).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SslAutoConfiguration.class,
                    SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s", "sockstate.auto-startup=false");

    @Test
    void everyPropertyOfAClientIsMappedToItsSettings() {
        this.runner.withPropertyValues("sockstate.groups.out.threads=1", "sockstate.clients.redis.address=10.0.0.1:6379, [::1]:6380",
                "sockstate.clients.redis.connect-timeout=2s", "sockstate.clients.redis.pool.size=4",
                "sockstate.clients.redis.reconnect.initial=50ms", "sockstate.clients.redis.reconnect.max=2s",
                "sockstate.clients.redis.reconnect.jitter=0", "sockstate.clients.redis.request-timeout=3s",
                "sockstate.clients.redis.max-pending-requests=64",
                "sockstate.clients.redis.idle-timeout=1m", "sockstate.clients.redis.max-pending-write-bytes=1MB",
                "sockstate.clients.redis.tcp-no-delay=false", "sockstate.clients.redis.receive-buffer-size=128KB",
                "sockstate.clients.redis.group=out", "sockstate.clients.redis.handler-executor=application",
                "sockstate.clients.redis.framing.type=delimiter", "sockstate.clients.redis.framing.delimiter=|",
                "sockstate.clients.redis.charset=ISO-8859-1").run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClientSettings redis = context.getBean(SocketServer.class).clientSettings().get(0);
                    assertThat(redis.name()).isEqualTo("redis");
                    assertThat(redis.addresses()).containsExactly(InetSocketAddress.createUnresolved("10.0.0.1", 6379),
                            InetSocketAddress.createUnresolved("::1", 6380));
                    assertThat(redis.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(redis.poolSize()).isEqualTo(4);
                    assertThat(redis.reconnect()).isEqualTo(new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2), 0));
                    assertThat(redis.requestTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(redis.maxPendingRequests()).isEqualTo(64);
                    assertThat(redis.connection().idleTimeout()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(redis.connection().maxPendingWriteBytes()).isEqualTo(1024 * 1024);
                    assertThat(redis.connection().socketOptions().tcpNoDelay()).isFalse();
                    assertThat(redis.connection().socketOptions().receiveBufferSize()).isEqualTo(128 * 1024);
                    assertThat(redis.connection().group()).isEqualTo("out");
                    assertThat(redis.connection().handlerExecutor()).isSameAs(context.getBean("applicationTaskExecutor", Executor.class));
                    assertThat(redis.connection().framing()).isNotNull();
                    assertThat(redis.connection().charset()).isEqualTo(StandardCharsets.ISO_8859_1);
                    assertThat(redis.connection().tls()).isNull();
                    assertThat(redis.handler()).as("a stand-in until the handlers are found").isNotNull();
                });
    }

    @Test
    void aClientLeftAtItsDefaultsKeepsOneConnectionWithTheCoresDefaults() {
        this.runner.withPropertyValues("sockstate.clients.echo.address=127.0.0.1:7007").run((context) -> {
            ClientSettings echo = context.getBean(SocketServer.class).clientSettings().get(0);
            ClientSettings core = ClientSettings.builder("echo").address("127.0.0.1:7007").build();
            assertThat(echo.poolSize()).isEqualTo(core.poolSize()).isEqualTo(1);
            assertThat(echo.connectTimeout()).isEqualTo(core.connectTimeout());
            assertThat(echo.reconnect()).isEqualTo(Backoff.DEFAULT);
            assertThat(echo.connection().maxPendingWriteBytes()).isEqualTo(core.connection().maxPendingWriteBytes());
            assertThat(echo.connection().abortPendingWriteBytes()).as("no limit aborts a client's connection unless set")
                    .isEqualTo(core.connection().abortPendingWriteBytes()).isZero();
            assertThat(echo.requestTimeout()).isEqualTo(core.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(echo.maxPendingRequests()).isEqualTo(core.maxPendingRequests()).isEqualTo(10_000);
            assertThat(echo.connection().framing()).isNull();
            assertThat(echo.connection().group()).isEqualTo("default");
        });
    }

    @Test
    void clientsAloneAskForTheServerWithoutAnyListener() {
        this.runner.withPropertyValues("sockstate.clients.echo.address=127.0.0.1:7007").run((context) -> {
            assertThat(context).hasNotFailed().hasSingleBean(SocketServer.class);
            assertThat(context.getBean(SocketServer.class).listenerSettings()).isEmpty();
        });
    }

    @Test
    void anSslBundleMakesTheClientSpeakTlsWithTheServerNameAndHostnameCheckAsConfigured() {
        this.runner.withPropertyValues("sockstate.clients.secure.address=127.0.0.1:6380", "sockstate.clients.secure.ssl.bundle=trust",
                "sockstate.clients.secure.ssl.server-name=redis.internal", "sockstate.clients.secure.ssl.verify-hostname=false",
                "sockstate.clients.secure.ssl.handshake-timeout=750ms",
                "spring.ssl.bundle.pem.trust.truststore.certificate=classpath:tls/ca.crt").run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClientSettings secure = context.getBean(SocketServer.class).clientSettings().get(0);
                    assertThat(secure.connection().tls().isClient()).isTrue();
                    assertThat(secure.connection().tls().serverName()).isEqualTo("redis.internal");
                    assertThat(secure.connection().tls().verifiesHostname()).isFalse();
                    assertThat(secure.connection().tls().handshakeTimeout()).isEqualTo(Duration.ofMillis(750));
                    assertThat(secure.connection().tls().context().get()).isNotNull();
                });
    }

    @Test
    void applicationProtocolsAreOfferedInTheirOrderAndRefusedWithoutABundleOrWhenNoNameCanBeOne() {
        this.runner.withPropertyValues("sockstate.clients.secure.address=127.0.0.1:8883", "sockstate.clients.secure.ssl.bundle=trust",
                "sockstate.clients.secure.ssl.application-protocols=mqtt,x-legacy",
                "spring.ssl.bundle.pem.trust.truststore.certificate=classpath:tls/ca.crt").run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClientSettings secure = context.getBean(SocketServer.class).clientSettings().get(0);
                    assertThat(secure.connection().tls().applicationProtocols()).containsExactly("mqtt", "x-legacy");
                });
        assertInvalid("sockstate.clients.plain.address=127.0.0.1:8883,sockstate.clients.plain.ssl.application-protocols=mqtt",
                "sockstate.clients.plain.ssl.application-protocols", List.of("mqtt"));
        this.runner.withPropertyValues("sockstate.clients.secure.address=127.0.0.1:8883", "sockstate.clients.secure.ssl.bundle=trust",
                "sockstate.clients.secure.ssl.application-protocols=mqtt,mqtt",
                "spring.ssl.bundle.pem.trust.truststore.certificate=classpath:tls/ca.crt").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.clients.secure.ssl.application-protocols");
                    assertThat(failure.getReason()).contains("'mqtt' cannot be an application protocol (ALPN) name: it is named twice");
                });
    }

    @Test
    void aHandshakeTimeoutThatIsNotPositiveOrHasNoBundleFailsStartupNamingItsProperty() {
        assertInvalid("sockstate.clients.secure.address=127.0.0.1:6380,sockstate.clients.secure.ssl.bundle=trust,"
                + "sockstate.clients.secure.ssl.handshake-timeout=0s,spring.ssl.bundle.pem.trust.truststore.certificate=classpath:tls/ca.crt",
                "sockstate.clients.secure.ssl.handshake-timeout", Duration.ZERO);
        assertInvalid("sockstate.clients.plain.address=127.0.0.1:6380,sockstate.clients.plain.ssl.handshake-timeout=2s",
                "sockstate.clients.plain.ssl.handshake-timeout", Duration.ofSeconds(2));
    }

    @Test
    void aHeartbeatIsMappedWithItsPingReadAsOneMessage() {
        this.runner.withPropertyValues("sockstate.clients.echo.address=127.0.0.1:7007", "sockstate.clients.echo.framing.type=line",
                "sockstate.clients.echo.heartbeat.idle=30s", "sockstate.clients.echo.heartbeat.ping=PING\\x21").run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClientHeartbeat heartbeat = context.getBean(SocketServer.class).clientSettings().get(0).heartbeat();
                    assertThat(heartbeat.idle()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(heartbeat.timeout()).as("the default").isEqualTo(Duration.ofSeconds(10));
                    assertThat((byte[]) heartbeat.ping()).isEqualTo("PING!".getBytes(StandardCharsets.US_ASCII));
                });
    }

    @Test
    void aHeartbeatWithoutItsPingOrWithoutFramingFailsStartupNamingItsProperty() {
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.framing.type=line,"
                + "sockstate.clients.echo.heartbeat.idle=30s", "sockstate.clients.echo.heartbeat.ping", null);
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.heartbeat.idle=30s,"
                + "sockstate.clients.echo.heartbeat.ping=PING", "sockstate.clients.echo.heartbeat.idle", null);
    }

    @Test
    void aHostWithoutAPortFailsStartupNamingTheAddressProperty() {
        assertInvalid("sockstate.clients.echo.address=nohost", "sockstate.clients.echo.address", "nohost");
    }

    @Test
    void portZeroFailsStartupNamingTheAddressProperty() {
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:0", "sockstate.clients.echo.address", "127.0.0.1:0");
    }

    @Test
    void aClientWithoutAnAddressFailsStartupNamingTheAddressProperty() {
        assertInvalid("sockstate.clients.echo.pool.size=2", "sockstate.clients.echo.address", null);
    }

    /** What clients share with listeners is mapped by the same lines, and refused against the client's own property. */
    @Test
    void aSettingSharedWithListenersFailsStartupNamingTheClientsProperty() {
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.max-pending-write-bytes=0B",
                "sockstate.clients.echo.max-pending-write-bytes", 0L);
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.abort-pending-write-bytes=1KB",
                "sockstate.clients.echo.abort-pending-write-bytes", 1024L);
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.receive-buffer-size=-1B",
                "sockstate.clients.echo.receive-buffer-size", -1);
    }

    @Test
    void aNegativeTimeoutFailsStartupNamingItsProperty() {
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.connect-timeout=-1s",
                "sockstate.clients.echo.connect-timeout", Duration.ofSeconds(-1));
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.request-timeout=-1s",
                "sockstate.clients.echo.request-timeout", Duration.ofSeconds(-1));
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.max-pending-requests=0",
                "sockstate.clients.echo.max-pending-requests", 0);
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.idle-timeout=-1s",
                "sockstate.clients.echo.idle-timeout", Duration.ofSeconds(-1));
    }

    @Test
    void aNegativePoolSizeOrABackoffThatShrinksFailsStartupNamingItsProperty() {
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.pool.size=-1",
                "sockstate.clients.echo.pool.size", -1);
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.reconnect.initial=1s,"
                + "sockstate.clients.echo.reconnect.max=500ms", "sockstate.clients.echo.reconnect.max", Duration.ofMillis(500));
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.reconnect.jitter=1.5",
                "sockstate.clients.echo.reconnect.jitter", 1.5);
    }

    @Test
    void anUnknownWorkerGroupFailsStartupNamingTheGroupProperty() {
        assertInvalid("sockstate.clients.echo.address=127.0.0.1:7007,sockstate.clients.echo.group=nosuch",
                "sockstate.clients.echo.group", "nosuch");
    }

    @Test
    void anSslBundleThatDoesNotExistFailsStartupNamingTheBundleProperty() {
        this.runner.withPropertyValues("sockstate.clients.echo.address=127.0.0.1:7007", "sockstate.clients.echo.ssl.bundle=nosuch")
                .run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.clients.echo.ssl.bundle");
                    assertThat(failure.getMessage()).contains("No SSL bundle named 'nosuch'");
                });
    }

    @Test
    void aHandlerNamingAClientThatIsNotConfiguredFailsStartup() {
        this.runner.withPropertyValues("sockstate.auto-startup=true", "sockstate.clients.echo.address=127.0.0.1:7007")
                .withUserConfiguration(RedisHandlerConfiguration.class).run((context) -> assertThat(StartupFailures.find(context,
                        SocketHandlerDefinitionException.class)).hasMessage("Bean 'redisHandler' handles client 'redis', which is not configured"));
    }

    @Test
    void eachClientIsABeanInjectedByQualifierOrByParameterName() {
        this.runner.withPropertyValues("sockstate.clients.redis.address=127.0.0.1:6379", "sockstate.clients.cache.address=127.0.0.1:11211")
                .withUserConfiguration(TwoClientsConfiguration.class).run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeansOfType(SocketClient.class)).containsOnlyKeys("redis", "cache");
                    Users users = context.getBean(Users.class);
                    assertThat(users.redis.name()).isEqualTo("redis");
                    assertThat(users.cache.name()).isEqualTo("cache");
                });
    }

    @Test
    void aClientBeanUsedBeforeTheServerRunsFailsNamingTheClient() {
        this.runner.withPropertyValues("sockstate.clients.redis.address=127.0.0.1:6379", "sockstate.clients.redis.framing.type=line")
                .run((context) -> {
                    SocketClient redis = context.getBean("redis", SocketClient.class);
                    assertThat(redis.request("PING")).failsWithin(Duration.ofSeconds(1)).withThrowableOfType(Exception.class)
                            .havingCause().isInstanceOf(ClientException.class)
                            .withMessage("Client 'redis' is not running: the socket server is not running (it starts with the"
                                    + " application context, once every singleton exists, and stops with it)");
                    AtomicReference<Throwable> heard = new AtomicReference<>();
                    redis.request("PING", (reply, failure) -> heard.set(failure));
                    assertThat(heard.get()).isInstanceOf(ClientException.class).hasMessageStartingWith("Client 'redis' is not running");
                    // What a reply handler throws on that failure is logged, not thrown at the caller.
                    redis.request("PING", (reply, failure) -> {
                        throw new IllegalStateException("a handler's own failure");
                    });
                    assertThat(redis.connections()).isEmpty();
                    try {
                        redis.send("PING");
                        throw new AssertionError("sent");
                    }
                    catch (ClientException ex) {
                        assertThat(ex.clientName()).isEqualTo("redis");
                    }
                });
    }

    @Test
    void aClientNamedAsAnotherBeanFailsStartupNamingTheClient() {
        this.runner.withPropertyValues("sockstate.clients.users.address=127.0.0.1:6379", "sockstate.clients.redis.address=127.0.0.1:1",
                "sockstate.clients.cache.address=127.0.0.1:2").withUserConfiguration(TwoClientsConfiguration.class).run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.clients.users");
                    assertThat(failure.getMessage()).contains("a bean named 'users' exists already");
                });
    }

    private void assertInvalid(String properties, String name, Object value) {
        this.runner.withPropertyValues(properties.split(",")).run((context) -> {
            InvalidConfigurationPropertyValueException failure = StartupFailures.find(context, InvalidConfigurationPropertyValueException.class);
            assertThat(failure.getName()).isEqualTo(name);
            if (value != null) {
                assertThat(failure.getValue()).isEqualTo(value);
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class RedisHandlerConfiguration {

        @Bean
        RedisHandler redisHandler() {
            return new RedisHandler();
        }
    }

    @SocketHandler(client = "redis")
    static class RedisHandler {

        @OnMessage
        void pushed(String message) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoClientsConfiguration {

        @Bean
        Users users(@Qualifier("redis") SocketClient first, SocketClient cache) {
            return new Users(first, cache);
        }
    }

    record Users(SocketClient redis, SocketClient cache) {
    }
}

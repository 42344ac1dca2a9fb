package dev.sockstate.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Events;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.server.tls.Tls;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/**
 * {@link ListenerSettings#toBuilder()}: settings made from others keep every one of their settings,
 * named, never copied by position.
 */
class ListenerSettingsCopyTest {

    private final ConnectionHandler handler = (connection, data) -> data.position(data.limit());

    private final Executor executor = Runnable::run;

    private final MessageMapper mapper = new MessageMapper() {

        @Override
        public boolean canRead(Class<?> type) {
            return false;
        }

        @Override
        public boolean canWrite(Class<?> type) {
            return false;
        }

        @Override
        public <T> T read(ByteBuffer message, Class<T> type) {
            return null;
        }

        @Override
        public ByteBuffer write(Object message) {
            return null;
        }
    };

    @Test
    void aListenersSettingsRebuiltFromItsBuilderAreEqualToItInEverySetting() throws Exception {
        for (ListenerSettings settings : fixtures()) {
            assertThat(settings.toBuilder().build()).isEqualTo(settings);
        }
    }

    @Test
    void aSettingChangedOnTheBuilderChangesThatSettingOnly() throws Exception {
        ListenerSettings settings = everythingOnAnIpPort();
        ConnectionHandler other = (connection, data) -> connection.write(data);
        ListenerSettings changed = settings.toBuilder().handler(other).idleTimeout(Duration.ofSeconds(9)).build();
        assertThat(changed.connectionHandler()).isSameAs(other);
        assertThat(changed.connection().idleTimeout()).isEqualTo(Duration.ofSeconds(9));
        assertThat(changed.toBuilder().handler(this.handler).idleTimeout(settings.connection().idleTimeout()).build()).isEqualTo(settings);
    }

    /** Guards the fixtures: between them, every setting differs from its default, so that a setting the copy forgot fails. */
    @Test
    void theFixturesSetEverySettingAwayFromItsDefault() throws Exception {
        ListenerSettings defaults = ListenerSettings.tcp("copied").handler(this.handler).build();
        List<String> unset = new ArrayList<>();
        for (RecordComponent component : ListenerSettings.class.getRecordComponents()) {
            Object standard = component.getAccessor().invoke(defaults);
            boolean differs = false;
            for (ListenerSettings settings : fixtures()) {
                differs |= !Objects.equals(component.getAccessor().invoke(settings), standard);
            }
            if (!differs) {
                unset.add(component.getName());
            }
        }
        // The name makes the builder; the protocol and the handlers differ by the UDP fixture's.
        assertThat(unset).containsExactly("name");
        for (RecordComponent component : ConnectionSettings.class.getRecordComponents()) {
            Object standard = component.getAccessor().invoke(defaults.connection());
            boolean differs = false;
            for (ListenerSettings settings : fixtures()) {
                differs |= !Objects.equals(component.getAccessor().invoke(settings.connection()), standard);
            }
            assertThat(differs).as("the fixtures set the connections' %s", component.getName()).isTrue();
        }
    }

    private ListenerSettings everythingOnAnIpPort() throws Exception {
        return ListenerSettings.tcp("copied").address(InetAddress.getLoopbackAddress()).portNumber(7000).backlog(77)
                .trigger(Trigger.EDGE_ONESHOT).events(Events.IN | Events.HANGUP | Events.OUT).reuseAddress(false).reusePort(true)
                .tcpNoDelay(false).receiveBufferSize(8192).sendBufferSize(16384)
                .keepAlive(SocketOptions.KeepAlive.of(Duration.ofSeconds(20), Duration.ofSeconds(2), 3)).userTimeout(Duration.ofSeconds(4))
                .linger(Duration.ofSeconds(1)).notSentLowWatermark(4096).trafficClass(8).fastOpenQueue(16).maxConnections(5)
                .admission(Admission.builder().maxConnectionsPerSource(3).build()).shaping(new Shaping(1024, 2048, 4096, 8192)).idleTimeout(Duration.ofSeconds(3))
                .maxPendingWriteBytes(1 << 20).abortPendingWriteBytes(2 << 20).group("own").handler(this.handler)
                .handlerExecutor(this.executor).stage(() -> new Stage() {
                }).maxDatagramsInFlight(7).receiveBatch(3).maxDatagramSize(1500).framing(Framing.line()).charset(StandardCharsets.ISO_8859_1).messageMapper(this.mapper)
                .tls(Tls.server(SSLContext.getDefault())).accept(AcceptMode.PER_WORKER)
                .proxyProtocol(ProxyProtocol.accept(ProxyProtocol.Version.V2).withTrustedProxies(Set.of("127.0.0.1/32"))).build();
    }

    /** @return settings that, between them, set every setting: some exclude others (a Unix path an address, the exclusive edge a trigger) */
    private List<ListenerSettings> fixtures() throws Exception {
        return List.of(everythingOnAnIpPort(), everythingOnAUnixSocket(), multicastOnUdp(),
                ListenerSettings.tcp("copied").exclusiveEdge(true).handler(this.handler).build(),
                ListenerSettings.udp("copied").receive(ReceiveMode.PER_WORKER).coalescing(Coalescing.WHOLE).handler((DatagramHandler) (endpoint, data, sender) -> {
                }).build());
    }

    private ListenerSettings multicastOnUdp() throws Exception {
        return ListenerSettings.udp("copied").handler((DatagramHandler) (endpoint, data, sender) -> {
        }).multicast(Multicast.NONE.join(InetAddress.getByName("239.1.2.3")).withNetworkInterface("lo").withHops(4).withLoopback(false)).build();
    }

    private ListenerSettings everythingOnAUnixSocket() {
        return ListenerSettings.tcp("copied").unixPath(Path.of("copied.sock")).unixPermissions("rw-------").handler(this.handler).build();
    }
}

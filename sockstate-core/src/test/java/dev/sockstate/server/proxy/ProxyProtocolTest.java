package dev.sockstate.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.proxy.ProxyProtocol.Version;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PROXY protocol's settings: trusted ranges as users write them, and the values refused with what is wrong. */
class ProxyProtocolTest {

    private static final ProxyProtocol ANY = ProxyProtocol.accept(Version.ANY);

    @Test
    void withoutTrustedProxiesEveryPeerIsTrusted() throws Exception {
        assertThat(ANY.trusts(InetAddress.getByName("203.0.113.9"))).isTrue();
        assertThat(ANY.trustedProxies()).isEmpty();
    }

    @Test
    void rangesAndSingleAddressesOfBothFamiliesAreTrusted() throws Exception {
        ProxyProtocol proxy = ANY.withTrustedProxies(List.of("10.0.0.0/8", "192.168.1.10", "fd00::/8", "172.16.0.0/12", "0.0.0.0/0 "));
        assertThat(proxy.trusts(InetAddress.getByName("10.255.0.1"))).isTrue();
        assertThat(proxy.trusts(InetAddress.getByName("192.168.1.10"))).isTrue();
        assertThat(proxy.trusts(InetAddress.getByName("fd12::1"))).isTrue();
        assertThat(proxy.trusts(InetAddress.getByName("172.31.255.255"))).isTrue();
        assertThat(proxy.trusts(InetAddress.getByName("fe80::1"))).as("an IPv4 range holds no IPv6 address").isFalse();
        ProxyProtocol narrow = ANY.withTrustedProxies(List.of("10.0.0.0/8", "172.16.0.0/12", "::1"));
        assertThat(narrow.trusts(InetAddress.getByName("11.0.0.1"))).isFalse();
        assertThat(narrow.trusts(InetAddress.getByName("172.32.0.1"))).isFalse();
        assertThat(narrow.trusts(InetAddress.getByName("::1"))).isTrue();
        assertThat(narrow.trusts(InetAddress.getByName("::ffff:10.1.2.3"))).as("an IPv4-mapped peer is its IPv4 address").isTrue();
        assertThat(narrow.trustedProxies()).containsExactly("10.0.0.0/8", "172.16.0.0/12", "::1");
    }

    @Test
    void entriesThatAreNoLiteralRangeAreRefusedNamingTheEntry() {
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of("proxy.example.com")))
                .withMessageContaining("'proxy.example.com' is not a literal IPv4 or IPv6 address");
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of("10.0.0.0/33")))
                .withMessageContaining("'10.0.0.0/33' has a prefix length that is not between 0 and 32");
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of("10.0.0.1/8")))
                .withMessageContaining("bits set past its prefix length 8 (a network address such as 10.0.0.0/8 is meant)");
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of("10.0.0.256")))
                .withMessageContaining("'10.0.0.256' is not a valid IPv4 address");
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of("fd00::zz/8")))
                .withMessageContaining("'fd00::zz/8' is not a literal");
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of(" ")))
                .withMessageContaining("must be an address or a range");
    }

    @Test
    void limitsOutOfRangeAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withHeaderTimeout(Duration.ZERO))
                .withMessageContaining("header timeout must be positive");
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withMaxHeaderSize(100))
                .withMessageContaining("between 232 and 65551 bytes, not 100");
        assertThat(ANY.withMaxHeaderSize(232).maxHeaderSize()).isEqualTo(232);
    }

    @Test
    void aUdpListenerTakesNoProxyProtocol() {
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerSettings.udp("logs").proxyProtocol(ANY)
                .handler((endpoint, datagram, sender) -> { }).build())
                .isInstanceOf(InvalidSettingException.class)
                .withMessageContaining("Listener 'logs': proxyProtocol is ANY, it must be none for a UDP listener")
                .satisfies((ex) -> assertThat(((InvalidSettingException) ex).setting()).isEqualTo(Setting.PROXY_PROTOCOL));
        ProxyProtocol everyPeer = ANY.withTrustedProxies(List.of("0.0.0.0/0", "::/0"));
        assertThat(ListenerSettings.tcp("echo").proxyProtocol(everyPeer).handler((ConnectionHandler) (connection, data) -> { })
                .build().proxyProtocol()).isSameAs(everyPeer);
    }

    @Test
    void anIpv4MappedRangeTrustsTheIpv4PeersItMaps() throws Exception {
        ProxyProtocol mapped = ANY.withTrustedProxies(List.of("::ffff:10.0.0.0/104", "::ffff:192.0.2.7"));
        assertThat(mapped.trusts(InetAddress.getByName("10.1.2.3"))).isTrue();
        assertThat(mapped.trusts(InetAddress.getByName("192.0.2.7"))).isTrue();
        assertThat(mapped.trusts(InetAddress.getByName("11.0.0.1"))).isFalse();
        assertThat(mapped.trusts(InetAddress.getByName("::1"))).isFalse();
        assertThatIllegalArgumentException().isThrownBy(() -> ANY.withTrustedProxies(List.of("::ffff:10.0.0.0/80")))
                .withMessageContaining("between 96 and 128");
    }

    @Test
    void anIpListenerThatNamesNoTrustedProxiesIsRefusedRatherThanBelieveEveryPeer() {
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerSettings.tcp("echo").proxyProtocol(ANY)
                .handler((ConnectionHandler) (connection, data) -> { }).build())
                .isInstanceOf(InvalidSettingException.class)
                .withMessageContaining("Listener 'echo': proxyProtocol.trustedProxies is none, it must be the balancers' addresses")
                .satisfies((ex) -> assertThat(((InvalidSettingException) ex).setting()).isEqualTo(Setting.TRUSTED_PROXIES));
    }
}

package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.Test;

/** A peer's address says whether it is this host's loopback as the JDK's {@code InetAddress} does, without making one. */
class PeerAddressTest {

    private static boolean loopback(String address) throws Exception {
        return PeerAddress.of(new InetSocketAddress(InetAddress.getByName(address), 9)).isLoopback();
    }

    @Test
    void loopbackAddressesAreLoopbackAsTheJdkSays() throws Exception {
        for (String address : new String[] { "127.0.0.1", "127.255.0.9", "::1" }) {
            assertThat(loopback(address)).as(address).isTrue().isEqualTo(InetAddress.getByName(address).isLoopbackAddress());
        }
    }

    @Test
    void otherAddressesAreNot() throws Exception {
        for (String address : new String[] { "10.0.0.1", "128.0.0.1", "::2", "::", "0.0.0.0", "fe80::1", "::127.0.0.1", "2001:db8::1" }) {
            assertThat(loopback(address)).as(address).isFalse().isEqualTo(InetAddress.getByName(address).isLoopbackAddress());
        }
        assertThat(PeerAddress.of(UnixDomainSocketAddress.of("/tmp/x.sock")).isLoopback()).isFalse();
        assertThat(PeerAddress.empty().isLoopback()).isFalse();
    }

    @Test
    void anIpv4LoopbackAddressMappedIntoIpv6IsLoopback() {
        byte[] mapped = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 127, 0, 0, 1 };
        PeerAddress peer = PeerAddress.empty();
        // The JDK turns a mapped address into an Inet4Address; a dual-stack socket's sender keeps the IPv6 form.
        peer.set(mapped, 16, 9, 0);
        assertThat(peer.isLoopback()).isTrue();
        byte[] other = mapped.clone();
        other[12] = 10;
        peer.set(other, 16, 9, 0);
        assertThat(peer.isLoopback()).isFalse();
    }
}

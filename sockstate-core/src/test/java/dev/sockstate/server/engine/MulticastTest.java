package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A UDP listener that joins multicast groups, on the real backend, with a real sender: {@code socat} in a
 * network namespace of the test's own ({@link VethNamespace}) sends to the groups over a veth pair, the
 * listener joined on the host's side. Any-source and source-specific IPv4 groups, an IPv6 group; where
 * the backend has no multicast (the Windows one), the start is refused naming the backend.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MulticastTest {

    private final ServerFixture fixture = new ServerFixture();

    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    private final DatagramHandler recording = (endpoint, data, sender) -> this.received
            .add(StandardCharsets.UTF_8.decode(data).toString().strip() + " from " + sender.toSocketAddress());

    private VethNamespace network;

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        if (this.network != null) {
            this.network.close();
        }
    }

    private static boolean hasMulticast() {
        return ServerFixture.backend().sockets().multicastUnsupported() == null;
    }

    @Test
    void aListenerReceivesTheDatagramsOfTheGroupsItJoinedOnItsInterfaceAndOfNoOther() throws Exception {
        if (!hasMulticast()) {
            aBackendWithoutMulticastRefusesTheListenerNamingItself();
            return;
        }
        this.network = VethNamespace.make("mcast", 252, false);
        int number = this.network.number();
        InetAddress joined = InetAddress.getByName("239.255." + number + ".1");
        InetAddress other = InetAddress.getByName("239.255." + number + ".2");
        Multicast multicast = Multicast.NONE.join(joined).withNetworkInterface(this.network.hostInterface());
        // The IPv4 wildcard: Linux gives an IPv4 socket every group of its port the host joined, unless told not to.
        SocketServer server = this.fixture.start(1, ServerFixture.udp("group").address(InetAddress.getByName("0.0.0.0")).multicast(multicast)
                .handler(this.recording).build());
        int port = server.listener("group").portNumber();
        // Another socket of the host joins the other group, on another port: its datagrams are not the listener's.
        try (DatagramChannel bystander = DatagramChannel.open(StandardProtocolFamily.INET)) {
            bystander.bind(new InetSocketAddress(0));
            bystander.join(other, NetworkInterface.getByName(this.network.hostInterface()));
            sendFromTheNamespace(other, port, "to another group");
            sendFromTheNamespace(joined, port, "to the group");
            assertThat(this.received.poll(5, TimeUnit.SECONDS)).isEqualTo("to the group from /" + this.network.peerAddress() + ":" + senderPort());
            assertThat(this.received.poll(300, TimeUnit.MILLISECONDS)).as("a datagram to a group another socket joined").isNull();
        }
    }

    @Test
    void aSourceSpecificJoinReceivesItsSourceOnly() throws Exception {
        assumeTrue(hasMulticast(), "the backend joins groups (the refusal of one that does not is the first test's)");
        this.network = VethNamespace.make("ssm", 253, false);
        int number = this.network.number();
        InetAddress fromPeer = InetAddress.getByName("232.1." + number + ".1");
        InetAddress fromElsewhere = InetAddress.getByName("232.1." + number + ".2");
        Multicast multicast = Multicast.NONE.withNetworkInterface(this.network.hostInterface())
                .join(new Multicast.Group(fromPeer, InetAddress.getByName(this.network.peerAddress())))
                .join(new Multicast.Group(fromElsewhere, InetAddress.getByName(this.network.hostAddress())));
        SocketServer server = this.fixture.start(1, ServerFixture.udp("ssm").address(null).multicast(multicast).handler(this.recording).build());
        int port = server.listener("ssm").portNumber();
        sendFromTheNamespace(fromElsewhere, port, "from a source not asked for");
        sendFromTheNamespace(fromPeer, port, "from the source asked for");
        assertThat(this.received.poll(5, TimeUnit.SECONDS)).startsWith("from the source asked for from /" + this.network.peerAddress());
        assertThat(this.received.poll(300, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void anIpv6GroupIsJoinedAsAnIpv4OneIs() throws Exception {
        assumeTrue(hasMulticast(), "the backend joins groups (the refusal of one that does not is the first test's)");
        this.network = VethNamespace.make("mcsix", 254, true);
        int number = this.network.number();
        InetAddress group = InetAddress.getByName("ff15::5:" + Integer.toHexString(number));
        Multicast multicast = Multicast.NONE.join(group).withNetworkInterface(this.network.hostInterface());
        SocketServer server = this.fixture.start(1, ServerFixture.udp("six").address(null).multicast(multicast).handler(this.recording).build());
        int port = server.listener("six").portNumber();
        UnixTools.require("socat");
        // (The namespace has one interface: its route for ff00::/8 takes the datagram there.)
        this.network.start("to the IPv6 group\n", "socat", "-u", "-", "UDP6-SENDTO:[" + group.getHostAddress() + "]:" + port
                + ",sourceport=" + senderPort());
        assertThat(this.received.poll(5, TimeUnit.SECONDS))
                .isEqualTo("to the IPv6 group from " + new InetSocketAddress(InetAddress.getByName(this.network.peerAddress6()), senderPort()));
    }

    @Test
    void aGroupJoinedWhileTheListenerRunsIsReceivedUntilItIsLeft() throws Exception {
        assumeTrue(hasMulticast(), "the backend joins groups (the refusal of one that does not is the first test's)");
        this.network = VethNamespace.make("mclive", 250, false);
        int number = this.network.number();
        Multicast.Group group = new Multicast.Group(InetAddress.getByName("239.254." + number + ".1"), null);
        SocketServer server = this.fixture.start(1, ServerFixture.udp("live").address(null)
                .multicast(Multicast.NONE.withNetworkInterface(this.network.hostInterface())).handler(this.recording).build());
        int port = server.listener("live").portNumber();
        sendFromTheNamespace(group.address(), port, "before the join");
        assertThat(this.received.poll(300, TimeUnit.MILLISECONDS)).as("a datagram to a group not joined yet").isNull();
        assertThat(server.joinGroup("live", group).groups()).containsExactly(group);
        assertThat(server.listenerSettings("live").multicast().groups()).as("kept for the next start").containsExactly(group);
        sendFromTheNamespace(group.address(), port, "joined");
        assertThat(this.received.poll(5, TimeUnit.SECONDS)).startsWith("joined from /" + this.network.peerAddress());
        assertThatIllegalArgumentException().isThrownBy(() -> server.joinGroup("live", group)).withMessageContaining("already");
        assertThat(server.leaveGroup("live", group).groups()).isEmpty();
        sendFromTheNamespace(group.address(), port, "after leaving");
        assertThat(this.received.poll(300, TimeUnit.MILLISECONDS)).as("a datagram to a group left").isNull();
        assertThatIllegalArgumentException().isThrownBy(() -> server.leaveGroup("live", group)).withMessageContaining("not joined");
    }

    @Test
    void anInterfaceTheSystemHasNotIsRefusedNamingIt() {
        assumeTrue(hasMulticast(), "the backend joins groups (the refusal of one that does not is the first test's)");
        ListenerSettings listener = ServerFixture.udp("nowhere").address(null)
                .multicast(Multicast.NONE.join(address("239.255.7.7")).withNetworkInterface("nosuchif0")).handler(this.recording).build();
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> this.fixture.start(1, listener))
                .withMessageContaining("'nowhere'").withMessageContaining("nosuchif0");
    }

    @Test
    void aBackendThatJoinsOnNamedInterfacesOnlyRefusesAGroupWithoutOne() {
        assumeTrue(hasMulticast() && !ServerFixture.backend().sockets().joinsOnAnyInterface(), "the backend needs a named interface");
        ListenerSettings listener = ServerFixture.udp("unnamed").address(null).multicast(Multicast.NONE.join(address("239.255.7.7")))
                .handler(this.recording).build();
        assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> this.fixture.start(1, listener))
                .withMessageContaining("'unnamed'").withMessageContaining("named interface");
    }

    private void aBackendWithoutMulticastRefusesTheListenerNamingItself() {
        ListenerSettings listener = ServerFixture.udp("group").address(null).multicast(Multicast.NONE.join(address("239.255.7.7")))
                .handler(this.recording).build();
        assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> this.fixture.start(1, listener))
                .withMessageContaining("'group'").withMessageContaining(ServerFixture.backend().name()).withMessageContaining("multicast");
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        }
        catch (java.net.UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the port the namespace's sender sends from, so that the sender a handler sees is known */
    private static int senderPort() {
        return 40_404;
    }

    private void sendFromTheNamespace(InetAddress group, int port, String text) throws Exception {
        UnixTools.require("socat");
        Process sender = this.network.start(text + "\n", "socat", "-u", "-", "UDP4-SENDTO:" + group.getHostAddress() + ":" + port
                + ",ip-multicast-if=" + this.network.peerAddress() + ",sourceport=" + senderPort() + ",reuseaddr");
        assertThat(sender.waitFor(10, TimeUnit.SECONDS)).as("socat sent").isTrue();
        assertThat(sender.exitValue()).as("socat's exit: %s", new String(sender.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
    }
}

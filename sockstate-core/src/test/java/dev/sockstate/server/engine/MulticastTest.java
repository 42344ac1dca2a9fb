package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.net.SocketTimeoutException;
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
 * listener joined on the host's side. Any-source and source-specific IPv4 groups, an IPv6 group; and
 * the other way, a listener's sends to a group, read by a member in the namespace and one on the host:
 * the interface, the hops and the loopback the listener set. Where the backend has no multicast (the
 * Windows one), the start is refused naming the backend.
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
    void aListenersMulticastSendsLeaveOnItsInterfaceWithinItsHopsAndReachThisHostsMembersOnlyWithLoopbackOn() throws Exception {
        assumeTrue(hasMulticast(), "the backend joins groups (the refusal of one that does not is the first test's)");
        UnixTools.require("socat");
        this.network = VethNamespace.make("mcsend", 249, false);
        int number = this.network.number();
        InetAddress group = InetAddress.getByName("239.253." + number + ".1");
        int groupPort = 21_000 + number;
        // A member beyond the host's side of the pair (in the namespace), and one on this host, on that side.
        BlockingQueue<String> far = lines(this.network.startHeld("socat", "-u", "UDP4-RECV:" + groupPort + ",ip-add-membership="
                + group.getHostAddress() + ":" + this.network.peerAddress(), "STDOUT"));
        try (MulticastSocket near = new MulticastSocket(groupPort)) {
            near.joinGroup(new InetSocketAddress(group, 0), NetworkInterface.getByName(this.network.hostInterface()));
            Multicast out = Multicast.NONE.withNetworkInterface(this.network.hostInterface());
            InetSocketAddress both = startSender("both", out.withHops(1).withLoopback(true), group, groupPort);
            assertThat(sendUntilReceived(both, "both", far)).as("hops 1: across the pair, on the interface chosen").isEqualTo("both");
            assertThat(receive(near, 5000)).as("loopback on: this host's member too").isEqualTo("both");
            settle(far, near);
            InetSocketAddress farOnly = startSender("faronly", out.withHops(1).withLoopback(false), group, groupPort);
            trigger(farOnly, "faronly");
            assertThat(far.poll(5, TimeUnit.SECONDS)).isEqualTo("faronly");
            assertThat(receive(near, 300)).as("loopback off: not to this host's member").isNull();
            settle(far, near);
            InetSocketAddress nearOnly = startSender("nearonly", out.withHops(0).withLoopback(true), group, groupPort);
            trigger(nearOnly, "nearonly");
            assertThat(receive(near, 5000)).isEqualTo("nearonly");
            assertThat(far.poll(300, TimeUnit.MILLISECONDS)).as("hops 0: it never leaves the host").isNull();
        }
    }

    @Test
    void anIpv6ListenersMulticastSendsLeaveOnItsInterfaceAndSkipThisHostWithLoopbackOff() throws Exception {
        assumeTrue(hasMulticast(), "the backend joins groups (the refusal of one that does not is the first test's)");
        UnixTools.require("socat");
        this.network = VethNamespace.make("mc6out", 248, true);
        int number = this.network.number();
        InetAddress group = InetAddress.getByName("ff15::6:" + Integer.toHexString(number));
        int groupPort = 22_000 + number;
        BlockingQueue<String> far = lines(this.network.startHeld("socat", "-u", "UDP6-RECV:" + groupPort + ",ipv6-join-group=["
                + group.getHostAddress() + "]:" + this.network.peerInterface(), "STDOUT"));
        try (MulticastSocket near = new MulticastSocket(groupPort)) {
            near.joinGroup(new InetSocketAddress(group, 0), NetworkInterface.getByName(this.network.hostInterface()));
            InetSocketAddress sender = startSender("six", Multicast.NONE.withNetworkInterface(this.network.hostInterface()).withHops(1)
                    .withLoopback(false), group, groupPort);
            assertThat(sendUntilReceived(sender, "six", far)).isEqualTo("six");
            assertThat(receive(near, 300)).as("loopback off: not to this host's member").isNull();
        }
    }

    /** Starts a listener that sends each datagram it receives on to the group, with these multicast settings. */
    private InetSocketAddress startSender(String name, Multicast multicast, InetAddress group, int groupPort) {
        PeerAddress target = PeerAddress.of(new InetSocketAddress(group, groupPort));
        SocketServer server = this.fixture.start(1, ServerFixture.udp(name).address(null).multicast(multicast)
                .handler((endpoint, data, sender) -> endpoint.send(data, target)).build());
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener(name).portNumber());
    }

    /** Asks the sending listener to send a line to its group. */
    private static void trigger(InetSocketAddress listener, String text) throws Exception {
        try (DatagramSocket client = new DatagramSocket()) {
            byte[] line = (text + "\n").getBytes(StandardCharsets.US_ASCII);
            client.send(new DatagramPacket(line, line.length, listener));
        }
    }

    /** @return the first line the member received, sent again every 100 ms (socat joins when it is ready), or {@code null} after 5 s */
    private static String sendUntilReceived(InetSocketAddress listener, String text, BlockingQueue<String> member) throws Exception {
        for (int i = 0; i < 50; i++) {
            trigger(listener, text);
            String line = member.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                return line;
            }
        }
        return null;
    }

    /** Lets the repeats of the last send arrive, then forgets them. */
    private static void settle(BlockingQueue<String> far, MulticastSocket near) throws Exception {
        Thread.sleep(300);
        far.clear();
        while (receive(near, 50) != null) {
            // a repeat
        }
    }

    /** @return the next datagram's text without its line end, or {@code null} when none came within the time */
    private static String receive(MulticastSocket member, int millis) throws Exception {
        member.setSoTimeout(millis);
        DatagramPacket packet = new DatagramPacket(new byte[256], 256);
        try {
            member.receive(packet);
        }
        catch (SocketTimeoutException ex) {
            return null;
        }
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII).strip();
    }

    /** @return the lines a program writes, read as they come */
    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    // (socat's own messages, on the same stream, begin with a date and its name: not datagrams.)
                    if (!line.matches("\\d{4}/\\d{2}/\\d{2} .*socat\\[\\d+\\].*")) {
                        lines.add(line.strip());
                    }
                }
            }
            catch (IOException ex) {
                // the program ended with the namespace
            }
        }, "multicast-member-output");
        reader.setDaemon(true);
        reader.start();
        return lines;
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

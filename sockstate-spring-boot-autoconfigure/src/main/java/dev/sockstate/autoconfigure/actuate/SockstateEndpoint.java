package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.WorkerGroupState;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.server.tls.Tls;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code sockstate} Actuator endpoint: the backend and its availability, the worker groups with
 * their ports and threads, every listener with its address, trigger and counts, and every outbound
 * client with its addresses, pool and open connections.
 */
@Endpoint(id = "sockstate")
public class SockstateEndpoint {

    private final SocketServer server;

    private final Backend backend;

    private final Function<String, @Nullable String> bundleOf;

    private final ToIntFunction<String> pendingRequests;

    /**
     * @param server the server
     * @param backend its backend
     */
    public SockstateEndpoint(SocketServer server, Backend backend) {
        this(server, backend, (listener) -> null);
    }

    /**
     * @param server the server
     * @param backend its backend
     * @param bundleOf the name of the SSL bundle of each TLS listener, by listener name ({@code null} when it has none)
     */
    public SockstateEndpoint(SocketServer server, Backend backend, Function<String, @Nullable String> bundleOf) {
        this(server, backend, bundleOf, (client) -> 0);
    }

    /**
     * @param server the server
     * @param backend its backend
     * @param bundleOf the name of the SSL bundle of each TLS listener, by listener name ({@code null} when it has none)
     * @param pendingRequests the requests each client sent and has not had answered yet, by client name
     */
    public SockstateEndpoint(SocketServer server, Backend backend, Function<String, @Nullable String> bundleOf,
            ToIntFunction<String> pendingRequests) {
        this.server = server;
        this.backend = backend;
        this.bundleOf = bundleOf;
        this.pendingRequests = pendingRequests;
    }

    private @Nullable TlsDescriptor tls(ListenerSettings settings) {
        Tls tls = settings.connection().tls();
        if (tls == null) {
            return null;
        }
        return new TlsDescriptor(this.bundleOf.apply(settings.name()), tls.clientAuth().name().toLowerCase(java.util.Locale.ROOT),
                (tls.protocols() != null) ? List.of(tls.protocols()) : List.of(), tls.serverNames().keySet(), tls.applicationProtocols(),
                tls.plaintextServed(), tls.startsTlsOnRequest());
    }

    /** @return what the servers look like now */
    @ReadOperation
    public SockstateDescriptor sockstate() {
        Availability availability = this.backend.availability();
        List<BoundListener> bound = this.server.listeners();
        List<ListenerDescriptor> listeners = new ArrayList<>();
        for (ListenerSettings settings : this.server.listenerSettings()) {
            listeners.add(describe(settings, bound));
        }
        List<ClientDescriptor> clients = new ArrayList<>();
        for (ClientSettings settings : this.server.clientSettings()) {
            clients.add(describe(settings));
        }
        return new SockstateDescriptor(new BackendDescriptor(this.backend.name(), availability.available(), availability.reason()),
                this.server.isRunning(), this.server.workerGroups(), listeners, clients);
    }

    private ClientDescriptor describe(ClientSettings settings) {
        List<ConnectionDescriptor> connections = new ArrayList<>();
        boolean running = this.server.isRunning();
        if (running) {
            try {
                for (Connection connection : this.server.client(settings.name()).connections()) {
                    connections.add(new ConnectionDescriptor(text(connection.localAddress()), text(connection.remoteAddress())));
                }
            }
            catch (IllegalArgumentException ex) {
                // Stopped since: no connection.
                running = false;
            }
        }
        return new ClientDescriptor(settings.name(), addresses(settings), settings.poolSize(), settings.connection().group(),
                settings.connection().framing() != null, settings.connection().tls() != null, running, connections,
                running ? this.pendingRequests.applyAsInt(settings.name()) : 0);
    }

    /** @return each address as configured, host:port ({@code [::1]:6379} for an IPv6 literal) */
    static List<String> addresses(ClientSettings settings) {
        List<String> addresses = new ArrayList<>();
        for (InetSocketAddress address : settings.addresses()) {
            String host = address.getHostString();
            addresses.add(((host.indexOf(':') >= 0) ? "[" + host + "]" : host) + ":" + address.getPort());
        }
        return addresses;
    }

    private static String text(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            String host = inet.getAddress().getHostAddress();
            return ((host.indexOf(':') >= 0) ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }

    /**
     * {@code /actuator/sockstate/{listener}}: one listener, as in the whole answer.
     * @param listener the listener's name
     * @return the listener, {@code null} (a 404) when none has that name
     */
    @ReadOperation
    public @Nullable ListenerDescriptor listener(@Selector String listener) {
        return this.server.listenerSettings().stream().filter((settings) -> settings.name().equals(listener)).findFirst()
                .map((settings) -> describe(settings, this.server.listeners())).orElse(null);
    }

    /**
     * @param settings a listener as configured
     * @param bound the running listeners, read once for every listener described
     */
    private ListenerDescriptor describe(ListenerSettings settings, List<BoundListener> bound) {
        BoundListener listener = bound.stream().filter((each) -> each.name().equals(settings.name())).findFirst().orElse(null);
        WorkerGroupSettings group = this.server.workerGroupSettings().stream().filter((each) -> each.name().equals(settings.connection().group()))
                .findFirst().orElseThrow();
        Trigger trigger = (listener != null) ? listener.trigger() : settings.triggerOn(group);
        return new ListenerDescriptor(settings.name(), settings.protocol().name().toLowerCase(java.util.Locale.ROOT),
                address(settings, listener), settings.isUnix() ? -1 : (listener != null) ? listener.portNumber() : settings.portNumber(), trigger.name().toLowerCase(java.util.Locale.ROOT)
                        .replace('_', '-'),
                settings.connection().group(), listener != null, (listener != null) ? listener.activeConnections() : 0,
                (listener != null) ? listener.registrations() : 0, (listener != null) ? listener.accepted() : 0,
                (listener != null) ? listener.rejected() : 0, rejectedBy(listener), (listener != null) ? listener.handlerErrors() : 0,
                listener != null && listener.serving(), settings.accept().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                (settings.protocol() == Protocol.UDP) ? settings.receive().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') : null,
                multicast(settings), tls(settings), proxyProtocol(settings), admission(settings),
                shaping((listener != null) ? listener.shaping() : settings.connection().shaping()));
    }

    /** @return the rates in bytes a second, {@code null} for no shaping */
    private static @Nullable ShapingDescriptor shaping(Shaping shaping) {
        return shaping.isShaping() ? new ShapingDescriptor(shaping.connectionRead(), shaping.connectionWrite(), shaping.totalRead(),
                shaping.totalWrite()) : null;
    }

    /** @return the refusals by reason, named as the meter's {@code reason} tag names them */
    private static Map<String, Long> rejectedBy(@Nullable BoundListener listener) {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (listener != null) {
            listener.rejectedBy().forEach((reason, count) -> counts.put(reason.tag(), count));
        }
        return counts;
    }

    private static @Nullable AdmissionDescriptor admission(ListenerSettings settings) {
        Admission admission = settings.admission();
        if (admission.isEmpty()) {
            return null;
        }
        return new AdmissionDescriptor(admission.allow(), admission.deny(), admission.maxConnectionsPerSource(),
                admission.ipv4SourcePrefix(), admission.ipv6SourcePrefix(), rate(admission.sourceRate()), rate(admission.listenerRate()),
                admission.maxSources());
    }

    private static @Nullable String rate(@Nullable Rate rate) {
        return (rate != null) ? rate.toString() : null;
    }

    /** @return the groups a UDP listener has joined (those joined or left while it runs included), {@code null} for none */
    private static @Nullable MulticastDescriptor multicast(ListenerSettings settings) {
        Multicast multicast = settings.multicast();
        if (!multicast.isSet()) {
            return null;
        }
        List<GroupDescriptor> groups = new ArrayList<>(multicast.groups().size());
        for (Multicast.Group group : multicast.groups()) {
            groups.add(new GroupDescriptor(group.address().getHostAddress(), (group.source() != null) ? group.source().getHostAddress() : null));
        }
        return new MulticastDescriptor(groups, multicast.networkInterface(), multicast.hops(), multicast.loopback());
    }

    private static @Nullable ProxyProtocolDescriptor proxyProtocol(ListenerSettings settings) {
        ProxyProtocol proxy = settings.proxyProtocol();
        return (proxy != null) ? new ProxyProtocolDescriptor(proxy.version().name().toLowerCase(java.util.Locale.ROOT),
                proxy.trustedProxies(), proxy.headerTimeout().toString(), proxy.maxHeaderSize()) : null;
    }

    /** @return the bound IP address, {@code unix:} and the path of a Unix domain socket, or {@code null} before the bind */
    private static @Nullable String address(ListenerSettings settings, @Nullable BoundListener listener) {
        if (settings.isUnix()) {
            return "unix:" + settings.unixPath();
        }
        return (listener != null) ? ((InetSocketAddress) listener.address()).getAddress().getHostAddress() : null;
    }

    /**
     * The endpoint's answer.
     * @param backend the backend
     * @param running whether the server runs
     * @param groups the worker groups
     * @param listeners the listeners
     * @param clients the outbound clients
     */
    public record SockstateDescriptor(BackendDescriptor backend, boolean running, List<WorkerGroupState> groups,
            List<ListenerDescriptor> listeners, List<ClientDescriptor> clients) implements OperationResponseBody {
    }

    /**
     * One outbound client.
     * @param name its name
     * @param addresses where it connects, host:port, in the order tried
     * @param poolSize the connections it keeps open
     * @param group its worker group
     * @param framed whether its connections are framed (requests need it)
     * @param tls whether it speaks TLS
     * @param running whether it runs
     * @param connections the pool's open connections
     * @param pendingRequests requests sent and not yet answered
     */
    public record ClientDescriptor(String name, List<String> addresses, int poolSize, String group, boolean framed, boolean tls,
            boolean running, List<ConnectionDescriptor> connections, int pendingRequests) {
    }

    /**
     * One open connection of a client.
     * @param localAddress its local address and port
     * @param remoteAddress the backend's address and port
     */
    public record ConnectionDescriptor(String localAddress, String remoteAddress) {
    }

    /**
     * The backend.
     * @param name its name
     * @param available whether it runs here
     * @param detail what was found, or why it cannot run
     */
    public record BackendDescriptor(String name, boolean available, String detail) {
    }

    /**
     * One listener.
     * @param name its name
     * @param protocol tcp or udp
     * @param address the bound address, or {@code unix:} and the path of a Unix domain socket; {@code null} while an IP
     * listener is not bound
     * @param port the bound port, -1 for a Unix domain socket
     * @param trigger how its sockets are registered
     * @param group its worker group
     * @param bound whether it is bound now
     * @param activeConnections open connections
     * @param registrations registrations on the port
     * @param accepted connections accepted
     * @param rejected connections closed at once as they were accepted: at the maximum, or refused by its admission
     * @param rejectedBy those connections by reason ({@code max-connections}, {@code denied}, {@code source-limit},
     * {@code source-rate}, {@code listener-rate}), each that refused one
     * @param handlerErrors handler calls that threw, or that the handler executor refused
     * @param serving whether its socket is registered and served
     * @param accept shared or per-worker: one listening socket, or one per worker
     * @param receive a UDP listener's shared or per-worker: one socket, or one per worker; {@code null} for TCP
     * @param multicast a UDP listener's multicast groups, {@code null} for none
     * @param tls its TLS, {@code null} for plaintext
     * @param proxyProtocol the PROXY protocol it reads, {@code null} for none
     * @param admission who may connect and how fast, {@code null} for no rule
     * @param shaping the rates its connections read and write at now, {@code null} for no shaping
     */
    public record ListenerDescriptor(String name, String protocol, @Nullable String address, int port, String trigger, String group,
            boolean bound, int activeConnections, int registrations, long accepted, long rejected, Map<String, Long> rejectedBy,
            long handlerErrors, boolean serving, String accept, @Nullable String receive, @Nullable MulticastDescriptor multicast,
            @Nullable TlsDescriptor tls, @Nullable ProxyProtocolDescriptor proxyProtocol,
            @Nullable AdmissionDescriptor admission, @Nullable ShapingDescriptor shaping) implements OperationResponseBody {
    }

    /**
     * A UDP listener's multicast groups as it runs, with how what it sends to a group goes out.
     * @param groups the groups joined
     * @param networkInterface the interface they are joined on, {@code null} for the system's choice
     * @param hops the hops (IPv4 TTL) of the multicast datagrams it sends
     * @param loopback whether what it sends to a group is looped back to the host's own members
     */
    public record MulticastDescriptor(List<GroupDescriptor> groups, @Nullable String networkInterface, int hops, boolean loopback) {
    }

    /**
     * A multicast group joined.
     * @param address the group's address
     * @param source the one source received from (a source-specific join), {@code null} for any
     */
    public record GroupDescriptor(String address, @Nullable String source) {
    }

    /**
     * A listener's traffic shaping as it runs, in bytes a second, 0 for no limit.
     * @param connectionRead what each connection may read
     * @param connectionWrite what each connection may write
     * @param totalRead what the connections may read together
     * @param totalWrite what the connections may write together
     */
    public record ShapingDescriptor(long connectionRead, long connectionWrite, long totalRead, long totalWrite) {
    }

    /**
     * A listener's admission rules.
     * @param allow the ranges a source must be in, empty for every address
     * @param deny the ranges whose sources are refused
     * @param maxConnectionsPerSource the most open connections of one source, 0 for no cap
     * @param ipv4SourcePrefix the prefix that makes an IPv4 address a source
     * @param ipv6SourcePrefix the prefix that makes an IPv6 address a source
     * @param sourceRate each source's accept rate, {@code null} for none
     * @param listenerRate the listener's accept rate, {@code null} for none
     * @param maxSources the most sources without open connections whose counts are kept
     */
    public record AdmissionDescriptor(List<String> allow, List<String> deny, int maxConnectionsPerSource, int ipv4SourcePrefix,
            int ipv6SourcePrefix, @Nullable String sourceRate, @Nullable String listenerRate, int maxSources) {
    }

    /**
     * A listener's PROXY protocol.
     * @param version v1, v2 or any
     * @param trustedProxies the balancers' ranges, empty when every peer is trusted
     * @param headerTimeout how long a trusted peer may take to send its header (ISO-8601)
     * @param maxHeaderSize the longest version 2 header taken, in bytes
     */
    public record ProxyProtocolDescriptor(String version, List<String> trustedProxies, String headerTimeout, int maxHeaderSize) {
    }

    /**
     * A listener's TLS.
     * @param bundle the SSL bundle that holds its key and trust, {@code null} when the endpoint was not told it
     * @param clientAuth none, want or need
     * @param protocols the protocols enabled, empty for the SSL context's defaults
     * @param serverNames the server names (SNI) with a bundle of their own
     * @param applicationProtocols the application protocols it negotiates (ALPN), most preferred first
     * @param plaintextServed whether it serves plaintext connections on the same port
     * @param startTls whether its connections begin in plaintext until their handler starts TLS (STARTTLS)
     */
    public record TlsDescriptor(@Nullable String bundle, String clientAuth, List<String> protocols, Set<String> serverNames,
            List<String> applicationProtocols, boolean plaintextServed, boolean startTls) {
    }
}

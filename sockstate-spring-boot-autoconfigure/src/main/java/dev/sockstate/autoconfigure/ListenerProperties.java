package dev.sockstate.autoconfigure;

import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.AcceptMode;
import dev.sockstate.server.Coalescing;
import dev.sockstate.server.ReceiveMode;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/** One listener: {@code sockstate.listeners.<name>.*}. */
public class ListenerProperties extends ConnectionProperties {

    /** Which PROXY protocol headers a listener reads. */
    public enum ProxyProtocolMode {

        /** None: the socket's peer is the connection's. */
        NONE,

        /** The text header, version 1. */
        V1,

        /** The binary header, version 2. */
        V2,

        /** Either version. */
        ANY
    }

    /** The events a listener's connections are registered for. */
    public enum ListenerEvent {

        /** Data to read. */
        IN,

        /** The peer hung up. */
        HANGUP
    }

    /** Transport: tcp or udp. */
    private Protocol protocol = Protocol.TCP;

    /** Local address to bind: an IP address or host name, every interface when not set; or unix: and a path, such as unix:/run/app/echo.sock, for a Unix domain socket (stream for tcp, datagram for udp) that has no port. */
    private @Nullable String address;

    /** Port to bind, required but for a Unix domain socket; 0 for an ephemeral port, published as local.sockstate.NAME.port. */
    private @Nullable Integer port;

    /** Permissions of a Unix domain socket's file as ls -l shows them, such as rw-rw---- (connecting takes write permission); those the umask gives when not set. */
    private @Nullable String unixPermissions;

    /** Whether each TCP connection's events and bytes are logged at DEBUG on the logger dev.sockstate.wiretap.NAME, for debugging a protocol. */
    private boolean wiretap;

    /** Length of the queue of connections waiting to be accepted (TCP). */
    private int backlog = 1024;

    /** How sockets are registered: level-oneshot, level-persistent, edge-oneshot or edge-persistent; when not set, level-persistent for TCP on a port per worker without a handler executor, else level-oneshot. */
    private @Nullable Trigger trigger;

    /**
     * Whether TCP connections are served in the exclusive edge-triggered mode: registered
     * edge-persistent once, never re-armed, one worker at a time through a claim word; fewer
     * system calls per message than level-oneshot. The trigger must then be left unset.
     */
    private boolean exclusiveEdge;

    /** Events connections are registered for: in, with hangup (which a TCP listener needs); in and hangup for TCP, in for UDP, when not set. */
    private Set<ListenerEvent> events = new LinkedHashSet<>();

    /** Whether the port may be bound again while old connections are in TIME_WAIT; Windows binds exclusively regardless. */
    private boolean reuseAddress = true;

    /** Whether to set SO_REUSEPORT on the listening socket (Linux). */
    private boolean reusePort;

    /** A ping after a quiet spell, and the connection aborted when nothing answers it in time. */
    @NestedConfigurationProperty
    private final HeartbeatProperties heartbeat = new HeartbeatProperties();

    /** Who may connect and how fast: allow and deny ranges, a cap of connections per source, accept rates. */
    @NestedConfigurationProperty
    private final AdmissionProperties admission = new AdmissionProperties();

    /** Connections opened with data in their SYN (TCP Fast Open) that may wait to be accepted; 0 for none. On Linux the server side also needs net.ipv4.tcp_fastopen with bit 2 set. */
    private int fastOpenQueue;

    /** How TCP connections are accepted: shared (one listening socket) or per-worker (one per worker of a port-per-worker group, with SO_REUSEPORT; one socket as shared where the system cannot spread connections, such as Windows). */
    private AcceptMode accept = AcceptMode.SHARED;

    /** Most open connections; new ones above it are closed at once and counted. */
    private int maxConnections = 10_000;

    /** UDP with a handler executor: datagrams handed to it and not yet handled above which more are dropped and counted. */
    private int maxDatagramsInFlight = 1024;

    /** How UDP datagrams are received: shared (one socket) or per-worker (one per worker of a port-per-worker group, with SO_REUSEPORT, each sender's datagrams kept to one worker; one socket as shared where the system cannot spread datagrams, such as Windows). */
    private ReceiveMode receive = ReceiveMode.SHARED;

    /** UDP: whether datagrams are received coalesced by the system (UDP_GRO on Linux, UDP_RECV_MAX_COALESCED_SIZE on Windows): off, segments (each segment still handed over alone) or whole (the handler gets each coalesced datagram, its segment size from DatagramEndpoint.segmentSize()); each datagram's room is then 64KB. */
    private Coalescing coalescing = Coalescing.OFF;

    /** UDP: most datagrams one receive call takes where the backend receives many at once (recvmmsg on epoll; one a call elsewhere); each is still handed to the handler alone. */
    private int receiveBatch = 16;

    /** UDP: room for each datagram received, a longer one handed over truncated; the worker group's read buffer size when unset. A receive batch takes this times receive-batch of memory. */
    private @Nullable DataSize maxDatagramSize;

    /** UDP: the multicast groups joined, and how multicast datagrams sent go out. */
    @NestedConfigurationProperty
    private final MulticastProperties multicast = new MulticastProperties();

    /** TLS of the listener's connections (TCP). */
    @NestedConfigurationProperty
    private final SslProperties ssl = new SslProperties();

    /** PROXY protocol header read first on each TCP connection, as a load balancer in front sends it: none, v1, v2 or any. */
    private ProxyProtocolMode proxyProtocol = ProxyProtocolMode.NONE;

    /** Load balancers' addresses or CIDR ranges that must send a PROXY protocol header; others are served as direct clients, their headers refused. Every peer when empty. */
    private List<String> trustedProxies = new ArrayList<>();

    /** How long a trusted peer may take from its accept to send its whole PROXY protocol header. */
    private Duration proxyHeaderTimeout = ProxyProtocol.DEFAULT_HEADER_TIMEOUT;

    /** Longest PROXY protocol version 2 header taken, its TLVs included. */
    private DataSize proxyHeaderMaxSize = DataSize.ofBytes(ProxyProtocol.DEFAULT_MAX_HEADER_SIZE);

    public Protocol getProtocol() {
        return this.protocol;
    }

    public void setProtocol(Protocol protocol) {
        this.protocol = protocol;
    }

    public @Nullable String getAddress() {
        return this.address;
    }

    public void setAddress(@Nullable String address) {
        this.address = address;
    }

    public @Nullable String getUnixPermissions() {
        return this.unixPermissions;
    }

    public void setUnixPermissions(@Nullable String unixPermissions) {
        this.unixPermissions = unixPermissions;
    }

    public boolean isWiretap() {
        return this.wiretap;
    }

    public void setWiretap(boolean wiretap) {
        this.wiretap = wiretap;
    }

    public @Nullable Integer getPort() {
        return this.port;
    }

    public void setPort(@Nullable Integer port) {
        this.port = port;
    }

    public int getBacklog() {
        return this.backlog;
    }

    public void setBacklog(int backlog) {
        this.backlog = backlog;
    }

    public @Nullable Trigger getTrigger() {
        return this.trigger;
    }

    public void setTrigger(@Nullable Trigger trigger) {
        this.trigger = trigger;
    }

    public boolean isExclusiveEdge() {
        return this.exclusiveEdge;
    }

    public void setExclusiveEdge(boolean exclusiveEdge) {
        this.exclusiveEdge = exclusiveEdge;
    }

    public Set<ListenerEvent> getEvents() {
        return this.events;
    }

    public void setEvents(Set<ListenerEvent> events) {
        this.events = events;
    }

    public boolean isReuseAddress() {
        return this.reuseAddress;
    }

    public void setReuseAddress(boolean reuseAddress) {
        this.reuseAddress = reuseAddress;
    }

    public AcceptMode getAccept() {
        return this.accept;
    }

    public void setAccept(AcceptMode accept) {
        this.accept = accept;
    }

    public HeartbeatProperties getHeartbeat() {
        return this.heartbeat;
    }

    public AdmissionProperties getAdmission() {
        return this.admission;
    }

    public int getFastOpenQueue() {
        return this.fastOpenQueue;
    }

    public void setFastOpenQueue(int fastOpenQueue) {
        this.fastOpenQueue = fastOpenQueue;
    }

    public boolean isReusePort() {
        return this.reusePort;
    }

    public void setReusePort(boolean reusePort) {
        this.reusePort = reusePort;
    }

    public int getMaxConnections() {
        return this.maxConnections;
    }

    public void setMaxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    public int getMaxDatagramsInFlight() {
        return this.maxDatagramsInFlight;
    }

    public void setMaxDatagramsInFlight(int maxDatagramsInFlight) {
        this.maxDatagramsInFlight = maxDatagramsInFlight;
    }

    public ReceiveMode getReceive() {
        return this.receive;
    }

    public void setReceive(ReceiveMode receive) {
        this.receive = receive;
    }

    public Coalescing getCoalescing() {
        return this.coalescing;
    }

    public void setCoalescing(Coalescing coalescing) {
        this.coalescing = coalescing;
    }

    public int getReceiveBatch() {
        return this.receiveBatch;
    }

    public void setReceiveBatch(int receiveBatch) {
        this.receiveBatch = receiveBatch;
    }

    public MulticastProperties getMulticast() {
        return this.multicast;
    }

    public @Nullable DataSize getMaxDatagramSize() {
        return this.maxDatagramSize;
    }

    public void setMaxDatagramSize(@Nullable DataSize maxDatagramSize) {
        this.maxDatagramSize = maxDatagramSize;
    }

    public SslProperties getSsl() {
        return this.ssl;
    }

    public ProxyProtocolMode getProxyProtocol() {
        return this.proxyProtocol;
    }

    public void setProxyProtocol(ProxyProtocolMode proxyProtocol) {
        this.proxyProtocol = proxyProtocol;
    }

    public List<String> getTrustedProxies() {
        return this.trustedProxies;
    }

    public void setTrustedProxies(List<String> trustedProxies) {
        this.trustedProxies = trustedProxies;
    }

    public Duration getProxyHeaderTimeout() {
        return this.proxyHeaderTimeout;
    }

    public void setProxyHeaderTimeout(Duration proxyHeaderTimeout) {
        this.proxyHeaderTimeout = proxyHeaderTimeout;
    }

    public DataSize getProxyHeaderMaxSize() {
        return this.proxyHeaderMaxSize;
    }

    public void setProxyHeaderMaxSize(DataSize proxyHeaderMaxSize) {
        this.proxyHeaderMaxSize = proxyHeaderMaxSize;
    }
}

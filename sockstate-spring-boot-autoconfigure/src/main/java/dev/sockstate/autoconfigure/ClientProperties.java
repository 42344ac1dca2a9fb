package dev.sockstate.autoconfigure;

import dev.sockstate.server.tls.Tls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** One outbound client: {@code sockstate.clients.<name>.*}. */
public class ClientProperties extends ConnectionProperties {

    /** Where the client connects, as host:port (127.0.0.1:6379, [::1]:6379, redis.internal:6379); several are tried in order until one answers. */
    private List<String> address = new ArrayList<>();

    /** How long a connect may take before the next address is tried. */
    private Duration connectTimeout = Duration.ofSeconds(5);

    /** The connections the client keeps open. */
    private final Pool pool = new Pool();

    /** How long the client waits before it connects again after a failed connect or a closed connection. */
    private final Reconnect reconnect = new Reconnect();

    /** How long a request waits for its reply, from when its bytes were handed to the socket, before it fails; 0 for ever. */
    private Duration requestTimeout = Duration.ofSeconds(10);

    /** Requests a pool connection may owe replies to before the next goes to another connection, or fails at once when none has room. */
    private int maxPendingRequests = 10_000;

    /** TLS of the client's connections. */
    private final Ssl ssl = new Ssl();

    /** The client's health contributor. */
    private final Health health = new Health();

    /** A ping sent as a request on each pool connection that went quiet; the connection aborted when its reply does not come. */
    private final Heartbeat heartbeat = new Heartbeat();

    public List<String> getAddress() {
        return this.address;
    }

    public void setAddress(List<String> address) {
        this.address = address;
    }

    public Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Pool getPool() {
        return this.pool;
    }

    public Reconnect getReconnect() {
        return this.reconnect;
    }

    public Duration getRequestTimeout() {
        return this.requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public int getMaxPendingRequests() {
        return this.maxPendingRequests;
    }

    public void setMaxPendingRequests(int maxPendingRequests) {
        this.maxPendingRequests = maxPendingRequests;
    }

    public Ssl getSsl() {
        return this.ssl;
    }

    public Heartbeat getHeartbeat() {
        return this.heartbeat;
    }

    public Health getHealth() {
        return this.health;
    }

    /** The connections a client keeps open. */
    public static class Pool {

        /** Connections kept open, each connected again when it fails; 0 for none (only those SocketClient.open() opens). */
        private int size = 1;

        public int getSize() {
            return this.size;
        }

        public void setSize(int size) {
            this.size = size;
        }
    }

    /** The backoff between connects: the initial wait, doubled after each failure in a row up to the max, each drawn within the jitter. */
    public static class Reconnect {

        /** The wait after the first failure. */
        private Duration initial = Duration.ofMillis(100);

        /** The longest wait. */
        private Duration max = Duration.ofSeconds(10);

        /** The part of each wait drawn at random either way, from 0 (none) to 1. */
        private double jitter = 0.2;

        public Duration getInitial() {
            return this.initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public Duration getMax() {
            return this.max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }

        public double getJitter() {
            return this.jitter;
        }

        public void setJitter(double jitter) {
            this.jitter = jitter;
        }
    }

    /** TLS of a client's connections, through a Spring Boot SSL bundle. */
    public static class Ssl {

        /** Name of the SSL bundle whose trust store decides which servers are trusted (and whose key, if any, is the client's certificate); plaintext when not set. */
        private @Nullable String bundle;

        /** Server name asked for (SNI) and checked against the server's certificate; the address's host when not set. */
        private @Nullable String serverName;

        /** Whether the server's certificate must name the server, as HTTPS checks it. */
        private boolean verifyHostname = true;

        /** How long a connect may take to finish its handshake before it fails (and the backoff's next wait begins). */
        private Duration handshakeTimeout = Tls.DEFAULT_HANDSHAKE_TIMEOUT;

        /** Application protocols offered in the handshake (ALPN), in order; the server's choice is the connection's applicationProtocol(). */
        private List<String> applicationProtocols = new ArrayList<>();

        /** Whether connections begin in plaintext until the handler, or the application, calls startTls() on them (STARTTLS). */
        private boolean startTls;

        /** The TLS engine: jdk, openssl (BoringSSL through netty-tcnative, on the class path) or auto (openssl where it loads). */
        private Tls.Provider provider = Tls.Provider.JDK;

        public @Nullable String getBundle() {
            return this.bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }

        public @Nullable String getServerName() {
            return this.serverName;
        }

        public void setServerName(@Nullable String serverName) {
            this.serverName = serverName;
        }

        public boolean isVerifyHostname() {
            return this.verifyHostname;
        }

        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }

        public Duration getHandshakeTimeout() {
            return this.handshakeTimeout;
        }

        public void setHandshakeTimeout(Duration handshakeTimeout) {
            this.handshakeTimeout = handshakeTimeout;
        }

        public List<String> getApplicationProtocols() {
            return this.applicationProtocols;
        }

        public void setApplicationProtocols(List<String> applicationProtocols) {
            this.applicationProtocols = applicationProtocols;
        }

        public boolean isStartTls() {
            return this.startTls;
        }

        public Tls.Provider getProvider() {
            return this.provider;
        }

        public void setProvider(Tls.Provider provider) {
            this.provider = provider;
        }

        public void setStartTls(boolean startTls) {
            this.startTls = startTls;
        }
    }

    /** A client's health contributor. */
    public static class Health {

        /** Whether the client's health is part of the readiness probe, so that traffic stops while its backend cannot be reached. */
        private boolean readiness;

        public boolean isReadiness() {
            return this.readiness;
        }

        public void setReadiness(boolean readiness) {
            this.readiness = readiness;
        }
    }

    /** A client's heartbeat: a ping, a request like the client's own, on each pool connection that went quiet. */
    public static class Heartbeat {

        /** Time without traffic on a pool connection after which a ping goes out; no heartbeat when not set. */
        private @Nullable Duration idle;

        /** How long the ping's reply is awaited before the connection is aborted, and connected again. */
        private Duration timeout = Duration.ofSeconds(10);

        /** The ping's text, one message in the client's charset that its framing encodes ("PING", say), its escapes \r, \n, \t, \\ and \xHH read. */
        private @Nullable String ping;

        public @Nullable Duration getIdle() {
            return this.idle;
        }

        public void setIdle(@Nullable Duration idle) {
            this.idle = idle;
        }

        public Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public @Nullable String getPing() {
            return this.ping;
        }

        public void setPing(@Nullable String ping) {
            this.ping = ping;
        }
    }
}

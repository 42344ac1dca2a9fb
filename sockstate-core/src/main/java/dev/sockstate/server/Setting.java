package dev.sockstate.server;

/**
 * A setting of a listener, a client or a worker group, as the runtime names it in its errors: each carries the
 * name of the builder method (or record component) that sets it, so that a message says what to
 * change in code, and a configuration layer can map each constant to its own property.
 */
public enum Setting {

    /** The listener's name, given to {@link ListenerSettings#tcp(String)} or {@link ListenerSettings#udp(String)}. */
    LISTENER_NAME(Scope.LISTENER, "name"),

    /** {@link ListenerSettings.Builder#portNumber(int)}. */
    PORT_NUMBER(Scope.LISTENER, "portNumber"),

    /** {@link ListenerSettings.Builder#backlog(int)}. */
    BACKLOG(Scope.LISTENER, "backlog"),

    /** {@link ListenerSettings.Builder#unixPath}. */
    UNIX_PATH(Scope.LISTENER, "unixPath"),

    /** {@link ListenerSettings.Builder#unixPermissions}. */
    UNIX_PERMISSIONS(Scope.LISTENER, "unixPermissions"),

    /** {@link ListenerSettings.Builder#trigger}. */
    TRIGGER(Scope.LISTENER, "trigger"),

    /** {@link ListenerSettings.Builder#exclusiveEdge(boolean)}. */
    EXCLUSIVE_EDGE(Scope.LISTENER, "exclusiveEdge"),

    /** {@link ListenerSettings.Builder#events(int)}. */
    EVENTS(Scope.LISTENER, "events"),

    /** {@link ConnectionSettings.Builder#receiveBufferSize(int)}. */
    RECEIVE_BUFFER_SIZE(Scope.LISTENER, "receiveBufferSize"),

    /** {@link ConnectionSettings.Builder#sendBufferSize(int)}. */
    SEND_BUFFER_SIZE(Scope.LISTENER, "sendBufferSize"),

    /** {@link ConnectionSettings.Builder#keepAlive}. */
    KEEP_ALIVE(Scope.LISTENER, "keepAlive"),

    /** {@link ConnectionSettings.Builder#userTimeout}. */
    USER_TIMEOUT(Scope.LISTENER, "userTimeout"),

    /** {@link ConnectionSettings.Builder#linger}. */
    LINGER(Scope.LISTENER, "linger"),

    /** {@link ConnectionSettings.Builder#notSentLowWatermark(int)}. */
    NOT_SENT_LOW_WATERMARK(Scope.LISTENER, "notSentLowWatermark"),

    /** {@link ConnectionSettings.Builder#trafficClass(int)}. */
    TRAFFIC_CLASS(Scope.LISTENER, "trafficClass"),

    /** {@link ListenerSettings.Builder#fastOpenQueue(int)}. */
    FAST_OPEN_QUEUE(Scope.LISTENER, "fastOpenQueue"),

    /** {@link ListenerSettings.Builder#maxConnections(int)}. */
    MAX_CONNECTIONS(Scope.LISTENER, "maxConnections"),

    /** {@link ConnectionSettings.Builder#idleTimeout}. */
    IDLE_TIMEOUT(Scope.LISTENER, "idleTimeout"),

    /** {@link ConnectionSettings.Builder#maxPendingWriteBytes(long)}. */
    MAX_PENDING_WRITE_BYTES(Scope.LISTENER, "maxPendingWriteBytes"),

    /** {@link ConnectionSettings.Builder#abortPendingWriteBytes(long)}. */
    ABORT_PENDING_WRITE_BYTES(Scope.LISTENER, "abortPendingWriteBytes"),

    /** {@link ListenerSettings.Builder#maxDatagramsInFlight(int)}. */
    MAX_DATAGRAMS_IN_FLIGHT(Scope.LISTENER, "maxDatagramsInFlight"),

    /** {@link ListenerSettings.Builder#receiveBatch(int)}. */
    RECEIVE_BATCH(Scope.LISTENER, "receiveBatch"),

    /** {@link ListenerSettings.Builder#maxDatagramSize(int)}. */
    MAX_DATAGRAM_SIZE(Scope.LISTENER, "maxDatagramSize"),

    /** {@link ListenerSettings.Builder#multicast(Multicast)}. */
    MULTICAST(Scope.LISTENER, "multicast"),

    /** {@link ConnectionSettings.Builder#group(String)}. */
    GROUP(Scope.LISTENER, "group"),

    /** {@link ListenerSettings.Builder#handler}: the connection or datagram handler. */
    HANDLER(Scope.LISTENER, "handler"),

    /** {@link ConnectionSettings.Builder#stage}: the stages between socket and handler. */
    STAGES(Scope.LISTENER, "stage"),

    /** {@link ConnectionSettings.Builder#framing}: how a connection's bytes are cut into frames. */
    FRAMING(Scope.LISTENER, "framing"),

    /** {@link ConnectionSettings.Builder#tls}: TLS on the listener's or client's connections. */
    TLS(Scope.LISTENER, "tls"),

    /** {@link ListenerSettings.Builder#proxyProtocol}: the PROXY protocol header read first on the listener's connections. */
    PROXY_PROTOCOL(Scope.LISTENER, "proxyProtocol"),

    /** {@link dev.sockstate.server.proxy.ProxyProtocol#withTrustedProxies}: the balancers whose PROXY protocol headers are believed. */
    TRUSTED_PROXIES(Scope.LISTENER, "proxyProtocol.trustedProxies"),

    /** {@link ListenerSettings.Builder#admission}: who may connect and how fast. */
    ADMISSION(Scope.LISTENER, "admission"),

    /** {@link ConnectionSettings.Builder#shaping}: the rates the connections read and write at. */
    SHAPING(Scope.LISTENER, "shaping"),

    /** {@link ListenerSettings.Builder#accept}: one listening socket, or one per worker. */
    ACCEPT(Scope.LISTENER, "accept"),

    /** {@link ListenerSettings.Builder#receive}: one UDP socket, or one per worker. */
    RECEIVE(Scope.LISTENER, "receive"),

    /** {@link ListenerSettings.Builder#coalescing}: datagrams received coalesced by the system, and handed over how. */
    COALESCING(Scope.LISTENER, "coalescing"),

    /** {@link WorkerGroupSettings#name()}: the group's name. */
    GROUP_NAME(Scope.WORKER_GROUP, "name"),

    /** {@link WorkerGroupSettings#workers()}. */
    WORKERS(Scope.WORKER_GROUP, "workers"),

    /** {@link WorkerGroupSettings#batchSize()}. */
    BATCH_SIZE(Scope.WORKER_GROUP, "batchSize"),

    /** {@link WorkerGroupSettings#dequeueTimeout()}. */
    DEQUEUE_TIMEOUT(Scope.WORKER_GROUP, "dequeueTimeout"),

    /** {@link WorkerGroupSettings#readBufferSize()}. */
    READ_BUFFER_SIZE(Scope.WORKER_GROUP, "readBufferSize"),

    /** {@link WorkerGroupSettings#threadNamePrefix()}. */
    THREAD_NAME_PREFIX(Scope.WORKER_GROUP, "threadNamePrefix"),

    /** {@link WorkerGroupSettings#portPerWorker()}. */
    PORT_PER_WORKER(Scope.WORKER_GROUP, "portPerWorker"),
    /** The client's name, given to {@link dev.sockstate.server.client.ClientSettings#builder(String)}. */
    CLIENT_NAME(Scope.CLIENT, "name"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#address}: where the client connects, in the order tried. */
    ADDRESS(Scope.CLIENT, "address"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#connectTimeout}. */
    CONNECT_TIMEOUT(Scope.CLIENT, "connectTimeout"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#poolSize(int)}. */
    POOL_SIZE(Scope.CLIENT, "poolSize"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#reconnect}. */
    RECONNECT(Scope.CLIENT, "reconnect"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#requestTimeout}. */
    REQUEST_TIMEOUT(Scope.CLIENT, "requestTimeout"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#maxPendingRequests(int)}. */
    MAX_PENDING_REQUESTS(Scope.CLIENT, "maxPendingRequests"),
    /** {@link dev.sockstate.server.client.ClientSettings.Builder#heartbeat}: a ping on each quiet pool connection. */
    CLIENT_HEARTBEAT(Scope.CLIENT, "heartbeat");

    private final Scope scope;

    private final String methodName;

    Setting(Scope scope, String methodName) {
        this.scope = scope;
        this.methodName = methodName;
    }

    /** @return whether it is a listener's, a client's or a worker group's setting */
    public Scope scope() {
        return this.scope;
    }

    /** @return the builder method or record component that sets it, such as {@code maxConnections} */
    public String methodName() {
        return this.methodName;
    }

    @Override
    public String toString() {
        return this.methodName;
    }

    /** What a setting belongs to. */
    public enum Scope {

        /** A listener's setting. */
        LISTENER,

        /** A worker group's setting. */
        WORKER_GROUP,
        /** An outbound client's setting. */
        CLIENT
    }
}

package dev.sockstate.autoconfigure;

import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import java.net.InetAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the socket servers: the backend, the worker pool, extra worker groups, the
 * listeners and the shutdown.
 */
@ConfigurationProperties("sockstate")
public class SockstateProperties {

    /** Whether to run the socket servers at all. */
    private boolean enabled = true;

    /** Notification backend: auto (the operating system's own), epoll or winsock. */
    private String backend = "auto";

    /** Where handler calls run for listeners that name no handler-executor: none (the workers), application (the application task executor) or a TaskExecutor bean's name. */
    private String handlerExecutor = "none";

    /** Most notifications one dequeue call returns. */
    private int batchSize = 64;

    /** How long one dequeue call waits for notifications before the worker loops. */
    private Duration dequeueTimeout = Duration.ofSeconds(1);

    /** The default worker pool, which serves every listener that names no other group. */
    private final Workers workers = new Workers();

    /** Further worker groups by name, each with a notification port and threads of its own. */
    private Map<String, Workers> groups = new LinkedHashMap<>();

    /** Listeners by name. */
    private Map<String, Listener> listeners = new LinkedHashMap<>();

    /** How the servers stop. */
    private final Shutdown shutdown = new Shutdown();

    /** Micrometer observations of handler calls. */
    private final Observations observations = new Observations();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBackend() {
        return this.backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public String getHandlerExecutor() {
        return this.handlerExecutor;
    }

    public void setHandlerExecutor(String handlerExecutor) {
        this.handlerExecutor = handlerExecutor;
    }

    public int getBatchSize() {
        return this.batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getDequeueTimeout() {
        return this.dequeueTimeout;
    }

    public void setDequeueTimeout(Duration dequeueTimeout) {
        this.dequeueTimeout = dequeueTimeout;
    }

    public Workers getWorkers() {
        return this.workers;
    }

    public Map<String, Workers> getGroups() {
        return this.groups;
    }

    public void setGroups(Map<String, Workers> groups) {
        this.groups = groups;
    }

    public Map<String, Listener> getListeners() {
        return this.listeners;
    }

    public void setListeners(Map<String, Listener> listeners) {
        this.listeners = listeners;
    }

    public Shutdown getShutdown() {
        return this.shutdown;
    }

    public Observations getObservations() {
        return this.observations;
    }

    /** Micrometer observations of handler calls. */
    public static class Observations {

        /** Whether to run every handler call in an observation (a span per call with a tracer); costs an allocation a call. */
        private boolean enabled;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** A worker group: threads dequeuing from one notification port. */
    public static class Workers {

        /** Worker threads; the number of available processors when not set. */
        private Integer threads;

        /** Prefix of the worker threads' names, followed by the group's name and a number. */
        private String threadNamePrefix = "sockstate-";

        /** Size of each worker's read buffer. */
        private DataSize readBufferSize = DataSize.ofKilobytes(64);

        /**
         * Whether each worker dequeues from a notification port of its own, each socket pinned to
         * one worker (round-robin as accepted), instead of all workers sharing one port.
         */
        private boolean portPerWorker;

        public Integer getThreads() {
            return this.threads;
        }

        public void setThreads(Integer threads) {
            this.threads = threads;
        }

        public String getThreadNamePrefix() {
            return this.threadNamePrefix;
        }

        public void setThreadNamePrefix(String threadNamePrefix) {
            this.threadNamePrefix = threadNamePrefix;
        }

        public DataSize getReadBufferSize() {
            return this.readBufferSize;
        }

        public void setReadBufferSize(DataSize readBufferSize) {
            this.readBufferSize = readBufferSize;
        }

        public boolean isPortPerWorker() {
            return this.portPerWorker;
        }

        public void setPortPerWorker(boolean portPerWorker) {
            this.portPerWorker = portPerWorker;
        }
    }

    /** The events a listener's connections are registered for. */
    public enum ListenerEvent {

        /** Data to read. */
        IN,

        /** The peer hung up. */
        HANGUP
    }

    /** One listener. */
    public static class Listener {

        /** Transport: tcp or udp. */
        private Protocol protocol = Protocol.TCP;

        /** Local address to bind; every interface when not set. */
        private InetAddress address;

        /** Port to bind; 0 for an ephemeral port, published as local.sockstate.NAME.port. */
        private int port;

        /** Length of the queue of connections waiting to be accepted (TCP). */
        private int backlog = 1024;

        /** How sockets are registered: level-oneshot (when not set), level-persistent, edge-oneshot or edge-persistent. */
        private Trigger trigger;

        /**
         * Whether TCP connections are served in the exclusive edge-triggered mode: registered
         * edge-persistent once, never re-armed, one worker at a time through a claim word; fewer
         * system calls per message than level-oneshot. The trigger must then be left unset.
         */
        private boolean exclusiveEdge;

        /** Events connections are registered for: in, optionally with hangup. */
        private Set<ListenerEvent> events = new LinkedHashSet<>();

        /** Whether to set SO_REUSEADDR on the listening socket. */
        private boolean reuseAddress = true;

        /** Whether to set SO_REUSEPORT on the listening socket (Linux). */
        private boolean reusePort;

        /** Whether to set TCP_NODELAY on accepted connections. */
        private boolean tcpNoDelay = true;

        /** Socket receive buffer size (SO_RCVBUF); the system's default when not set. */
        private DataSize receiveBufferSize;

        /** Most open connections; new ones above it are closed at once and counted. */
        private int maxConnections = 10_000;

        /** How long a connection may go without traffic before it is closed; never when not set. */
        private Duration idleTimeout;

        /** Queued write bytes above which a connection stops reading until the queue drains. */
        private DataSize maxPendingWriteBytes = DataSize.ofMegabytes(4);

        /** UDP with a handler executor: datagrams handed to it and not yet handled above which more are dropped and counted. */
        private int maxDatagramsInFlight = 1024;

        /** Worker group that serves the listener: default, or one defined under sockstate.groups. */
        private String group = "default";

        /** Where the listener's handler calls run: none (the workers), application (the application task executor) or a TaskExecutor bean's name; sockstate.handler-executor when not set. */
        private String handlerExecutor;

        /** Character set of String payloads and replies. */
        private Charset charset = StandardCharsets.UTF_8;

        /** How a TCP connection's bytes are cut into messages. */
        @NestedConfigurationProperty
        private final Framing framing = new Framing();

        public Protocol getProtocol() {
            return this.protocol;
        }

        public void setProtocol(Protocol protocol) {
            this.protocol = protocol;
        }

        public InetAddress getAddress() {
            return this.address;
        }

        public void setAddress(InetAddress address) {
            this.address = address;
        }

        public int getPort() {
            return this.port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public int getBacklog() {
            return this.backlog;
        }

        public void setBacklog(int backlog) {
            this.backlog = backlog;
        }

        public Trigger getTrigger() {
            return this.trigger;
        }

        public void setTrigger(Trigger trigger) {
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

        public boolean isReusePort() {
            return this.reusePort;
        }

        public void setReusePort(boolean reusePort) {
            this.reusePort = reusePort;
        }

        public boolean isTcpNoDelay() {
            return this.tcpNoDelay;
        }

        public void setTcpNoDelay(boolean tcpNoDelay) {
            this.tcpNoDelay = tcpNoDelay;
        }

        public DataSize getReceiveBufferSize() {
            return this.receiveBufferSize;
        }

        public void setReceiveBufferSize(DataSize receiveBufferSize) {
            this.receiveBufferSize = receiveBufferSize;
        }

        public int getMaxConnections() {
            return this.maxConnections;
        }

        public void setMaxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
        }

        public Duration getIdleTimeout() {
            return this.idleTimeout;
        }

        public void setIdleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }

        public DataSize getMaxPendingWriteBytes() {
            return this.maxPendingWriteBytes;
        }

        public void setMaxPendingWriteBytes(DataSize maxPendingWriteBytes) {
            this.maxPendingWriteBytes = maxPendingWriteBytes;
        }

        public int getMaxDatagramsInFlight() {
            return this.maxDatagramsInFlight;
        }

        public void setMaxDatagramsInFlight(int maxDatagramsInFlight) {
            this.maxDatagramsInFlight = maxDatagramsInFlight;
        }

        public String getGroup() {
            return this.group;
        }

        public void setGroup(String group) {
            this.group = group;
        }

        public String getHandlerExecutor() {
            return this.handlerExecutor;
        }

        public void setHandlerExecutor(String handlerExecutor) {
            this.handlerExecutor = handlerExecutor;
        }

        public Charset getCharset() {
            return this.charset;
        }

        public void setCharset(Charset charset) {
            this.charset = charset;
        }

        public Framing getFraming() {
            return this.framing;
        }
    }

    /** How frames are found in a TCP connection's bytes. */
    public enum FramingType {

        /** Raw reads: each call gets what one read returned. */
        NONE,

        /** Lines ended by LF (a CR before it is stripped too); replies get an LF. */
        LINE,

        /** Frames ended by the delimiter. */
        DELIMITER,

        /** Frames whose header holds their length. */
        LENGTH_FIELD,

        /** Records of one length. */
        FIXED,

        /** RFC 6587 octet counting: a decimal length, a space, the message (syslog over TCP). */
        OCTET_COUNTING,

        /** The decoder (and encoder) bean named by codec. */
        CUSTOM
    }

    /** Framing of one listener. */
    public static class Framing {

        /** How frames are found: none, line, delimiter, length-field, fixed, octet-counting or custom. */
        private FramingType type = FramingType.NONE;

        /** Longest frame, header and terminator included; a longer one closes its connection. */
        private DataSize maxFrameSize = DataSize.ofKilobytes(64);

        /** Bytes that end a frame (delimiter framing), as text in the listener's charset. */
        private String delimiter;

        /** Length of every frame (fixed framing). */
        private DataSize fixedLength;

        /** Where the length is (length-field framing). */
        @NestedConfigurationProperty
        private final LengthField lengthField = new LengthField();

        /** Name of a bean implementing FrameDecoder, and FrameEncoder unless replies are written framed (custom framing). */
        private String codec;

        public FramingType getType() {
            return this.type;
        }

        public void setType(FramingType type) {
            this.type = type;
        }

        public DataSize getMaxFrameSize() {
            return this.maxFrameSize;
        }

        public void setMaxFrameSize(DataSize maxFrameSize) {
            this.maxFrameSize = maxFrameSize;
        }

        public String getDelimiter() {
            return this.delimiter;
        }

        public void setDelimiter(String delimiter) {
            this.delimiter = delimiter;
        }

        public DataSize getFixedLength() {
            return this.fixedLength;
        }

        public void setFixedLength(DataSize fixedLength) {
            this.fixedLength = fixedLength;
        }

        public LengthField getLengthField() {
            return this.lengthField;
        }

        public String getCodec() {
            return this.codec;
        }

        public void setCodec(String codec) {
            this.codec = codec;
        }
    }

    /** A length field, as Netty's LengthFieldBasedFrameDecoder reads it. */
    public static class LengthField {

        /** Where the field starts in the frame, in bytes. */
        private int offset;

        /** Bytes of the field: 1, 2, 3, 4 or 8. */
        private int length = 4;

        /** Byte order of the field: big-endian or little-endian. */
        private FieldByteOrder byteOrder = FieldByteOrder.BIG_ENDIAN;

        /** Added to the field's value to get the bytes that follow the field. */
        private int adjustment;

        /** Header bytes the handler does not see, from the frame's start: 0 to offset plus length; the whole header when not set. */
        private Integer strip;

        public int getOffset() {
            return this.offset;
        }

        public void setOffset(int offset) {
            this.offset = offset;
        }

        public int getLength() {
            return this.length;
        }

        public void setLength(int length) {
            this.length = length;
        }

        public FieldByteOrder getByteOrder() {
            return this.byteOrder;
        }

        public void setByteOrder(FieldByteOrder byteOrder) {
            this.byteOrder = byteOrder;
        }

        public int getAdjustment() {
            return this.adjustment;
        }

        public void setAdjustment(int adjustment) {
            this.adjustment = adjustment;
        }

        public Integer getStrip() {
            return this.strip;
        }

        public void setStrip(Integer strip) {
            this.strip = strip;
        }
    }

    /** Byte order of a length field. */
    public enum FieldByteOrder {

        /** Most significant byte first (network order). */
        BIG_ENDIAN,

        /** Least significant byte first. */
        LITTLE_ENDIAN
    }

    /** How the servers stop with the application. */
    public static class Shutdown {

        /** Whether to let handlers in flight finish and queued writes drain before closing connections. */
        private boolean graceful = true;

        /** How long a graceful shutdown waits before aborting the connections still busy; the shutdown phase's timeout less 5s when not set. */
        private Duration timeout;

        public boolean isGraceful() {
            return this.graceful;
        }

        public void setGraceful(boolean graceful) {
            this.graceful = graceful;
        }

        public Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}

package dev.sockstate.autoconfigure;

import dev.sockstate.autoconfigure.FramingProperties.FieldByteOrder;
import dev.sockstate.autoconfigure.FramingProperties.FramingType;
import dev.sockstate.autoconfigure.FramingProperties.LengthField;
import dev.sockstate.autoconfigure.ListenerProperties.ListenerEvent;
import dev.sockstate.autoconfigure.ListenerProperties.ProxyProtocolMode;
import dev.sockstate.autoconfigure.SockstateProperties.Workers;
import dev.sockstate.port.Events;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.tls.Tls;
import dev.sockstate.server.wiretap.Wiretap;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.unit.DataSize;

/**
 * Turns {@link SockstateProperties} into the runtime's settings. The runtime checks the values
 * ({@link InvalidSettingException}, naming its {@link Setting}); {@link #asProperty} reports a refusal
 * against the property it came from, through one table, and what only the starter knows (executor
 * beans, the default group's place) is checked here.
 */
final class ServerSettingsFactory {

    private static final String PREFIX = "sockstate.";

    private final SockstateProperties properties;

    private final MessageMapper messageMapper;

    private final BundleSslContexts ssl;

    /**
     * @param properties the properties
     * @param messageMapper reads and writes the listeners' messages of the application's types, or {@code null}
     */
    ServerSettingsFactory(SockstateProperties properties, MessageMapper messageMapper) {
        this(properties, messageMapper, null);
    }

    /**
     * @param properties the properties
     * @param messageMapper reads and writes the listeners' messages of the application's types, or {@code null}
     * @param bundles the SSL bundles the listeners' {@code ssl.bundle} name, or {@code null} when there are none
     */
    ServerSettingsFactory(SockstateProperties properties, MessageMapper messageMapper, SslBundles bundles) {
        this.properties = properties;
        this.messageMapper = messageMapper;
        this.ssl = new BundleSslContexts(bundles);
    }

    /** @return what the handlers need to know of each listener, by name */
    Map<String, ListenerKind> listenerKinds() {
        Map<String, ListenerKind> kinds = new LinkedHashMap<>();
        this.properties.getListeners().forEach((name, listener) -> kinds.put(name, new ListenerKind(listener.getProtocol(),
                listener.getFraming().getType() != FramingType.NONE, this.messageMapper,
                ListenerAddress.of(PREFIX + "listeners." + name + ".address", listener.getAddress()).isUnix())));
        return kinds;
    }

    /** @return what the handlers need to know of each client, by name */
    Map<String, ListenerKind> clientKinds() {
        return new ClientSettingsFactory(this.properties, this.messageMapper, this.ssl).clientKinds();
    }

    /**
     * @param handlers where each client's handler is found once the singletons exist
     * @param beans where the executors and codecs named are
     * @return every client's settings ({@link ClientSettingsFactory})
     */
    List<ClientSettings> clients(ListenerHandlers handlers, BeanFactory beans) {
        return new ClientSettingsFactory(this.properties, this.messageMapper, this.ssl).clients(handlers, beans);
    }

    List<WorkerGroupSettings> groups(List<WorkerGroupCustomizer> customizers) {
        List<WorkerGroupSettings> groups = new ArrayList<>();
        groups.add(group(ListenerSettings.DEFAULT_GROUP, "workers", this.properties.getWorkers(), customizers));
        this.properties.getGroups().forEach((name, workers) -> {
            require(!ListenerSettings.DEFAULT_GROUP.equals(name), "groups." + name, name,
                    "The default group is configured under sockstate.workers.");
            groups.add(group(name, "groups." + name, workers, customizers));
        });
        return groups;
    }

    private WorkerGroupSettings group(String name, String path, Workers workers, List<WorkerGroupCustomizer> customizers) {
        int threads = (workers.getThreads() != null) ? workers.getThreads() : Runtime.getRuntime().availableProcessors();
        require(workers.getReadBufferSize() != null, path + ".read-buffer-size", null, "It must be set.");
        WorkerGroupSettings group = new WorkerGroupSettings(name, threads, this.properties.getBatchSize(),
                this.properties.getDequeueTimeout(), bytes(workers.getReadBufferSize()), workers.getThreadNamePrefix(),
                workers.isPortPerWorker(), workers.isYieldBeforeWait());
        for (WorkerGroupCustomizer customizer : customizers) {
            group = customizer.customize(group);
        }
        return group;
    }

    List<ListenerSettings> listeners(ListenerHandlers handlers, BeanFactory beans,
            List<ListenerCustomizer> customizers) {
        handlers.serving();
        List<ListenerSettings> listeners = new ArrayList<>();
        this.properties.getListeners().forEach((name, listener) -> {
            ListenerSettings.Builder builder = builder(name, listener, beans);
            if (listener.getProtocol() == Protocol.TCP) {
                builder.handler((ConnectionHandler) handlers.handler(name));
            }
            else {
                builder.handler((DatagramHandler) handlers.handler(name));
            }
            customizers.forEach((customizer) -> customizer.customize(name, builder));
            listeners.add(builder.build());
        });
        return listeners;
    }

    private ListenerSettings.Builder builder(String name, ListenerProperties listener, BeanFactory beans) {
        String path = "listeners." + name + ".";
        ListenerAddress address = ListenerAddress.of(PREFIX + path + "address", listener.getAddress());
        // As Spring Boot's servers, an ephemeral port is asked for, not had by leaving the port out.
        require(address.isUnix() || listener.getPort() != null, path + "port", null, "It must be set: the port number to bind,"
                + " or 0 for an ephemeral one (tests get ephemeral ports by themselves, see @LocalListenerPort).");
        // Zero is what tests set for every listener; a Unix domain socket has no port to choose.
        require(!address.isUnix() || listener.getPort() == null || listener.getPort() == 0, path + "port", listener.getPort(),
                "A listener on a Unix domain socket (address " + listener.getAddress() + ") has no port: leave it out.");
        require(listener.getCharset() != null, path + "charset", null, "It must be set.");
        DataSize pending = listener.getMaxPendingWriteBytes();
        require(pending != null, path + "max-pending-write-bytes", null, "It must be set.");
        DataSize abort = listener.getAbortPendingWriteBytes();
        require(abort != null, path + "abort-pending-write-bytes", null, "It must be set (0B for no limit).");
        int events = 0;
        if (listener.getEvents() != null && !listener.getEvents().isEmpty()) {
            events = (listener.getEvents().contains(ListenerEvent.IN) ? Events.IN : 0)
                    | (listener.getEvents().contains(ListenerEvent.HANGUP) ? Events.HANGUP : 0);
        }
        ListenerSettings.Builder builder = (listener.getProtocol() == Protocol.UDP) ? ListenerSettings.udp(name)
                : ListenerSettings.tcp(name);
        builder.address(address.ip()).portNumber(address.isUnix() ? 0 : listener.getPort()).unixPath(address.unixPath())
                .unixPermissions(listener.getUnixPermissions()).backlog(listener.getBacklog())
                .trigger(listener.getTrigger()).exclusiveEdge(listener.isExclusiveEdge())
                .reuseAddress(listener.isReuseAddress()).reusePort(listener.isReusePort())
                .accept(listener.getAccept())
                .tcpNoDelay(listener.isTcpNoDelay()).maxConnections(listener.getMaxConnections())
                .idleTimeout(listener.getIdleTimeout()).maxPendingWriteBytes(pending.toBytes())
                .abortPendingWriteBytes(abort.toBytes())
                .maxDatagramsInFlight(listener.getMaxDatagramsInFlight()).group(listener.getGroup())
                .handlerExecutor((listener.getHandlerExecutor() != null)
                        ? executor(path + "handler-executor", listener.getHandlerExecutor(), beans)
                        : executor("handler-executor", this.properties.getHandlerExecutor(), beans));
        if (events != 0) {
            builder.events(events);
        }
        if (listener.isWiretap()) {
            require(listener.getProtocol() == Protocol.TCP, path + "wiretap", true, "The wiretap logs TCP connections; a UDP"
                    + " listener has none.");
            // The first stage added: after TLS, before the application's stages and the framing.
            builder.stage(Wiretap.of(name));
        }
        if (listener.getReceiveBufferSize() != null) {
            builder.receiveBufferSize(bytes(listener.getReceiveBufferSize()));
        }
        builder.framing(framing(path + "framing.", listener.getFraming(), listener.getCharset(), beans))
                .charset(listener.getCharset()).messageMapper(this.messageMapper);
        Tls tls = tls(path + "ssl.", listener);
        if (tls != null) {
            builder.tls(tls);
        }
        builder.proxyProtocol(proxyProtocol(path, listener));
        return builder;
    }

    /** @return the PROXY protocol the listener's {@code proxy-protocol} and {@code trusted-proxies} describe, {@code null} for none */
    private static ProxyProtocol proxyProtocol(String path, ListenerProperties listener) {
        ProxyProtocolMode mode = listener.getProxyProtocol();
        if (mode == null || mode == ProxyProtocolMode.NONE) {
            require(listener.getTrustedProxies() == null || listener.getTrustedProxies().isEmpty(), path + "trusted-proxies",
                    listener.getTrustedProxies(), "Trusted proxies need the PROXY protocol: set proxy-protocol to v1, v2 or any.");
            return null;
        }
        require(listener.getProtocol() == Protocol.TCP, path + "proxy-protocol", mode, "The PROXY protocol header begins a TCP"
                + " connection; a UDP listener has none.");
        ProxyProtocol proxy = ProxyProtocol.accept(ProxyProtocol.Version.valueOf(mode.name()));
        try {
            proxy = proxy.withTrustedProxies(listener.getTrustedProxies());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "trusted-proxies", listener.getTrustedProxies(),
                    ex.getMessage() + ".");
        }
        try {
            proxy = proxy.withHeaderTimeout(listener.getProxyHeaderTimeout());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "proxy-header-timeout", listener.getProxyHeaderTimeout(),
                    "It must be positive.");
        }
        DataSize max = listener.getProxyHeaderMaxSize();
        require(max != null && max.toBytes() >= 232 && max.toBytes() <= 65551, path + "proxy-header-max-size", max,
                "It must be between 232 B (a header without TLVs) and 65551 B (the most a version 2 header can declare).");
        return proxy.withMaxHeaderSize((int) max.toBytes());
    }

    /** @return the TLS the listener's {@code ssl.*} properties describe, {@code null} for plaintext */
    private Tls tls(String path, ListenerProperties listener) {
        SslProperties ssl = listener.getSsl();
        if (ssl.getBundle() == null) {
            require(ssl.getServerNameBundles().isEmpty(), path + "server-name-bundles", null,
                    "Bundles by server name need the listener's own ssl.bundle, for the other names.");
            return null;
        }
        require(listener.getProtocol() == Protocol.TCP, path + "bundle", ssl.getBundle(), "TLS is for TCP listeners.");
        require(ssl.getHandshakeTimeout() != null && ssl.getHandshakeTimeout().compareTo(Duration.ZERO) > 0,
                path + "handshake-timeout", ssl.getHandshakeTimeout(), "It must be positive.");
        SslBundle bundle = this.ssl.bundle(PREFIX + path + "bundle", ssl.getBundle());
        require(ssl.getClientAuth() == Tls.ClientAuth.NONE || bundle.getStores().getTrustStore() != null, path + "client-auth",
                ssl.getClientAuth(), "Client certificates are checked against the bundle's trust store, and SSL bundle '"
                        + ssl.getBundle() + "' has none (the JDK's public CAs would be trusted): configure its truststore.");
        Supplier<SSLContext> context = this.ssl.context(PREFIX + path + "bundle", ssl.getBundle());
        String[] protocols = bundle.getOptions().getEnabledProtocols();
        String[] ciphers = bundle.getOptions().getCiphers();
        try {
            SSLEngine engine = context.get().createSSLEngine();
            if (protocols != null && protocols.length > 0) {
                engine.setEnabledProtocols(protocols);
            }
            if (ciphers != null && ciphers.length > 0) {
                engine.setEnabledCipherSuites(ciphers);
            }
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "bundle", ssl.getBundle(), "The options of SSL bundle '"
                    + ssl.getBundle() + "' (enabled-protocols, ciphers) name what this JDK does not offer: " + ex.getMessage());
        }
        Tls tls = Tls.server(context).withClientAuth(ssl.getClientAuth()).withHandshakeTimeout(ssl.getHandshakeTimeout())
                .withProtocols(protocols).withCipherSuites(ciphers);
        if (!ssl.getServerNameBundles().isEmpty()) {
            Map<String, Supplier<SSLContext>> byName = new LinkedHashMap<>();
            for (int i = 0; i < ssl.getServerNameBundles().size(); i++) {
                SslProperties.ServerNameBundle named = ssl.getServerNameBundles().get(i);
                String property = path + "server-name-bundles[" + i + "]";
                require(named.getServerName() != null && !named.getServerName().isBlank(), property + ".server-name", null,
                        "It must be set.");
                require(named.getBundle() != null, property + ".bundle", null, "It must be set.");
                byName.put(named.getServerName(), this.ssl.context(PREFIX + property + ".bundle", named.getBundle()));
            }
            tls = tls.withServerNames(byName);
        }
        return tls;
    }

    /** @return the framing the properties describe, or {@code null} for raw reads */
    static Framing framing(String path, FramingProperties properties, Charset charset, BeanFactory beans) {
        FramingType type = properties.getType();
        require(properties.getCodec() == null || type == FramingType.CUSTOM, path + "codec", properties.getCodec(),
                "A codec is named only with framing.type custom.");
        Framing framing;
        try {
            framing = switch (type) {
                case NONE -> null;
                case LINE -> Framing.line();
                case DELIMITER -> {
                    String delimiter = properties.getDelimiter();
                    require(delimiter != null && !delimiter.isEmpty(), path + "delimiter", delimiter,
                            "Delimiter framing needs the bytes that end a frame.");
                    yield Framing.delimiter(delimiter.getBytes(charset));
                }
                case LENGTH_FIELD -> lengthField(properties.getLengthField());
                case FIXED -> {
                    require(properties.getFixedLength() != null, path + "fixed-length", null, "Fixed framing needs the frames' length.");
                    yield Framing.fixed(bytes(properties.getFixedLength()));
                }
                case OCTET_COUNTING -> Framing.octetCounting();
                case CUSTOM -> codec(path + "codec", properties.getCodec(), beans);
            };
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "type", type, ex.getMessage());
        }
        if (framing == null) {
            return null;
        }
        try {
            return framing.withMaxFrameSize(bytes(properties.getMaxFrameSize()));
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "max-frame-size", properties.getMaxFrameSize(),
                    ex.getMessage());
        }
    }

    private static Framing lengthField(LengthField field) {
        int strip = (field.getStrip() != null) ? field.getStrip() : field.getOffset() + field.getLength();
        ByteOrder order = (field.getByteOrder() == FieldByteOrder.LITTLE_ENDIAN) ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        return Framing.lengthField(field.getOffset(), field.getLength(), order, field.getAdjustment(), strip);
    }

    private static Framing codec(String path, String name, BeanFactory beans) {
        require(name != null && !name.isBlank(), path, name, "Custom framing needs the name of a FrameDecoder bean.");
        Object codec;
        try {
            codec = beans.getBean(name);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path, name, "No bean named '" + name + "' exists.");
        }
        require(codec instanceof FrameDecoder, path, name, "The bean '" + name + "' is a " + codec.getClass().getName()
                + ", not a FrameDecoder.");
        FrameEncoder encoder = (codec instanceof FrameEncoder frameEncoder) ? frameEncoder : FrameEncoder.AS_IS;
        return Framing.of((FrameDecoder) codec, encoder);
    }

    static Executor executor(String path, String name, BeanFactory beans) {
        if (name == null || name.isBlank() || "none".equals(name)) {
            return null;
        }
        String beanName = "application".equals(name) ? TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME : name;
        try {
            return beans.getBean(beanName, Executor.class);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path, name, "No Executor bean named '" + beanName
                    + "' exists; use none, application (the application task executor) or the name of a TaskExecutor bean.");
        }
    }

    /** @return the size in bytes, clamped to the int range (the runtime refuses what is out of its own range) */
    static int bytes(DataSize size) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, size.toBytes()));
    }

    /**
     * Where each of the runtime's settings comes from: the property, relative to the listener's
     * ({@code listeners.<name>.}), the client's ({@code clients.<name>.}, which shares the names of the
     * settings it has in common with listeners) or the worker group's ({@code workers.} or
     * {@code groups.<name>.}) prefix, or, starting with {@code sockstate.}, a property shared by every group.
     */
    private static final Map<Setting, String> PROPERTIES = properties();

    private static Map<Setting, String> properties() {
        Map<Setting, String> properties = new EnumMap<>(Setting.class);
        properties.put(Setting.LISTENER_NAME, "");
        properties.put(Setting.PORT_NUMBER, "port");
        properties.put(Setting.BACKLOG, "backlog");
        properties.put(Setting.UNIX_PATH, "address");
        properties.put(Setting.UNIX_PERMISSIONS, "unix-permissions");
        properties.put(Setting.TRIGGER, "trigger");
        properties.put(Setting.EXCLUSIVE_EDGE, "exclusive-edge");
        properties.put(Setting.EVENTS, "events");
        properties.put(Setting.RECEIVE_BUFFER_SIZE, "receive-buffer-size");
        properties.put(Setting.MAX_CONNECTIONS, "max-connections");
        properties.put(Setting.IDLE_TIMEOUT, "idle-timeout");
        properties.put(Setting.MAX_PENDING_WRITE_BYTES, "max-pending-write-bytes");
        properties.put(Setting.ABORT_PENDING_WRITE_BYTES, "abort-pending-write-bytes");
        properties.put(Setting.MAX_DATAGRAMS_IN_FLIGHT, "max-datagrams-in-flight");
        properties.put(Setting.GROUP, "group");
        properties.put(Setting.HANDLER, "handler");
        properties.put(Setting.STAGES, "stages");
        properties.put(Setting.FRAMING, "framing.type");
        properties.put(Setting.TLS, "ssl.bundle");
        properties.put(Setting.PROXY_PROTOCOL, "proxy-protocol");
        properties.put(Setting.TRUSTED_PROXIES, "trusted-proxies");
        properties.put(Setting.ACCEPT, "accept");
        properties.put(Setting.GROUP_NAME, "");
        properties.put(Setting.WORKERS, "threads");
        properties.put(Setting.BATCH_SIZE, PREFIX + "batch-size");
        properties.put(Setting.DEQUEUE_TIMEOUT, PREFIX + "dequeue-timeout");
        properties.put(Setting.READ_BUFFER_SIZE, "read-buffer-size");
        properties.put(Setting.THREAD_NAME_PREFIX, "thread-name-prefix");
        properties.put(Setting.PORT_PER_WORKER, "port-per-worker");
        properties.put(Setting.CLIENT_NAME, "");
        properties.put(Setting.ADDRESS, "address");
        properties.put(Setting.CONNECT_TIMEOUT, "connect-timeout");
        properties.put(Setting.POOL_SIZE, "pool.size");
        properties.put(Setting.RECONNECT, "reconnect");
        properties.put(Setting.REQUEST_TIMEOUT, "request-timeout");
        properties.put(Setting.MAX_PENDING_REQUESTS, "max-pending-requests");
        return properties;
    }

    /**
     * Reports a setting the runtime refused against the property it came from.
     * @param refused the runtime's refusal
     * @return the same, in the words of {@code sockstate.*}, with the refusal as a suppressed exception
     */
    static InvalidConfigurationPropertyValueException asProperty(InvalidSettingException refused) {
        String property = PROPERTIES.get(refused.setting());
        if (!property.startsWith(PREFIX)) {
            String owner = refused.ownerName();
            String prefix = switch (refused.ownerScope()) {
                case LISTENER -> "listeners." + owner;
                case CLIENT -> "clients." + owner;
                case WORKER_GROUP -> ListenerSettings.DEFAULT_GROUP.equals(owner) ? "workers" : "groups." + owner;
            };
            property = PREFIX + prefix + (property.isEmpty() ? "" : "." + property);
        }
        InvalidConfigurationPropertyValueException translated = new InvalidConfigurationPropertyValueException(property,
                refused.value(), refused.reason());
        // Its cause is set (to none) by its constructor: the runtime's own words travel as a suppressed exception.
        translated.addSuppressed(refused);
        return translated;
    }

    private static void require(boolean valid, String property, Object value, String reason) {
        if (!valid) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
        }
    }
}

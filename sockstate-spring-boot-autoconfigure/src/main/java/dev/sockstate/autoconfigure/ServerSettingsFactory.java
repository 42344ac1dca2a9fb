package dev.sockstate.autoconfigure;

import static dev.sockstate.autoconfigure.SettingSources.PREFIX;

import dev.sockstate.autoconfigure.FramingProperties.FramingType;
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
import dev.sockstate.server.Multicast;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.heartbeat.Heartbeat;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.tls.Tls;
import dev.sockstate.server.wiretap.Wiretap;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import dev.sockstate.spring.handler.SocketHandlers;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.unit.DataSize;

/**
 * Turns {@link SockstateProperties} into the runtime's settings, one mapping line per setting
 * ({@link SettingSources}; what listeners and clients share, {@link ConnectionSettingsMapper}). The
 * runtime checks the values ({@link InvalidSettingException}, naming its {@link Setting});
 * {@link #asProperty} reports a refusal against the property its line named, and what only the
 * starter knows (executor beans, SSL bundles, the default group's place) is checked here.
 */
final class ServerSettingsFactory {

    private final SockstateProperties properties;

    /** Where each setting made here came from, for the runtime's refusals. */
    private final SettingSources sources = new SettingSources();

    private final @Nullable MessageMapper messageMapper;

    private final BundleSslContexts ssl;

    /**
     * @param properties the properties
     * @param messageMapper reads and writes the listeners' messages of the application's types, or {@code null}
     */
    ServerSettingsFactory(SockstateProperties properties, @Nullable MessageMapper messageMapper) {
        this(properties, messageMapper, null);
    }

    /**
     * @param properties the properties
     * @param messageMapper reads and writes the listeners' messages of the application's types, or {@code null}
     * @param bundles the SSL bundles the listeners' {@code ssl.bundle} name, or {@code null} when there are none
     */
    ServerSettingsFactory(SockstateProperties properties, @Nullable MessageMapper messageMapper, @Nullable SslBundles bundles) {
        this.properties = properties;
        this.messageMapper = messageMapper;
        this.ssl = new BundleSslContexts(bundles);
    }

    /** @return what the handlers need to know of each listener, by name */
    Map<String, ListenerKind> listenerKinds() {
        Map<String, ListenerKind> kinds = new LinkedHashMap<>();
        this.properties.getListeners().forEach((name, listener) -> kinds.put(name, kind(name, listener)));
        return kinds;
    }

    /** @return what the handler needs to know of a listener */
    ListenerKind kind(String name, ListenerProperties listener) {
        return new ListenerKind(listener.getProtocol(), listener.getFraming().getType() != FramingType.NONE, this.messageMapper,
                ListenerAddress.of(PREFIX + "listeners." + name + ".address", listener.getAddress()).isUnix(),
                List.copyOf(listener.getSsl().getApplicationProtocols()), listener.getSsl().isServePlaintext(),
                listener.getSsl().getBundle() != null && listener.getSsl().isStartTls());
    }

    /**
     * Makes the settings of a listener added while the server runs, from properties as
     * {@code sockstate.listeners.<name>} would hold them.
     * @param name its name
     * @param listener its properties
     * @param handler its handler, adapted
     * @param beans where the executors and codecs named are
     * @param customizers what customizes every listener
     * @return the settings
     * @throws InvalidConfigurationPropertyValueException naming the property of a value that does not fit
     */
    ListenerSettings listener(String name, ListenerProperties listener, Object handler, BeanFactory beans,
            List<ListenerCustomizer> customizers) {
        try {
            ListenerSettings.Builder builder = builder(name, listener, beans);
            if (listener.getProtocol() == Protocol.TCP) {
                builder.handler((ConnectionHandler) handler);
            }
            else {
                builder.handler((DatagramHandler) handler);
            }
            customizers.forEach((customizer) -> customizer.customize(name, builder));
            return builder.build();
        }
        catch (InvalidSettingException ex) {
            throw asProperty(ex);
        }
    }

    /** @return what the handlers need to know of each client, by name */
    Map<String, ListenerKind> clientKinds() {
        return new ClientSettingsFactory(this.properties, this.messageMapper, this.ssl, this.sources).clientKinds();
    }

    /**
     * @param handlers where each client's handler is found once the singletons exist
     * @param beans where the executors and codecs named are
     * @return every client's settings ({@link ClientSettingsFactory})
     */
    List<ClientSettings> clients(ListenerHandlers handlers, BeanFactory beans) {
        return new ClientSettingsFactory(this.properties, this.messageMapper, this.ssl, this.sources).clients(handlers, beans);
    }

    /**
     * Makes the settings of a client added while the server runs, from properties as
     * {@code sockstate.clients.<name>} would hold them.
     * @param name its name
     * @param client its properties
     * @param handler the handler of what no request is owed, {@code null} to drop it; adapted as a bean's is
     * @param beans where the executors and codecs named are
     * @return the settings
     * @throws InvalidConfigurationPropertyValueException naming the property of a value that does not fit
     */
    ClientSettings client(String name, ClientProperties client, @Nullable Object handler, BeanFactory beans) {
        ClientSettingsFactory clients = new ClientSettingsFactory(this.properties, this.messageMapper, this.ssl, this.sources);
        ConnectionHandler adapted = (handler != null) ? SocketHandlers.clientHandler(handler, name, clients.kind(client))
                : (connection, data) -> data.position(data.limit());
        try {
            return clients.client(name, client, adapted, beans);
        }
        catch (InvalidSettingException ex) {
            throw asProperty(ex);
        }
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
        // The group's settings are one record, made whole: each is named where the record is made.
        SettingSources.Lines lines = this.sources.of(Scope.WORKER_GROUP, name, path + ".");
        lines.named(Setting.WORKERS, PREFIX + path + ".threads");
        lines.named(Setting.BATCH_SIZE, PREFIX + "batch-size");
        lines.named(Setting.DEQUEUE_TIMEOUT, PREFIX + "dequeue-timeout");
        lines.named(Setting.READ_BUFFER_SIZE, PREFIX + path + ".read-buffer-size");
        lines.named(Setting.THREAD_NAME_PREFIX, PREFIX + path + ".thread-name-prefix");
        lines.named(Setting.PORT_PER_WORKER, PREFIX + path + ".port-per-worker");
        WorkerGroupSettings group = new WorkerGroupSettings(name, threads, this.properties.getBatchSize(),
                this.properties.getDequeueTimeout(), ConnectionSettingsMapper.bytes(workers.getReadBufferSize()),
                workers.getThreadNamePrefix(), workers.isPortPerWorker(), workers.isYieldBeforeWait());
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
        ListenerSettings.Builder builder = (listener.getProtocol() == Protocol.UDP) ? ListenerSettings.udp(name)
                : ListenerSettings.tcp(name);
        SettingSources.Lines lines = this.sources.of(Scope.LISTENER, name, path);
        lines.from(address::ip).to(builder::address);
        lines.from(Setting.PORT_NUMBER, "port", () -> address.isUnix() ? 0 : listener.getPort()).to(builder::portNumber);
        lines.from(Setting.UNIX_PATH, "address", address::unixPath).to(builder::unixPath);
        lines.from(Setting.UNIX_PERMISSIONS, "unix-permissions", listener::getUnixPermissions).to(builder::unixPermissions);
        lines.from(Setting.BACKLOG, "backlog", listener::getBacklog).to(builder::backlog);
        lines.from(Setting.TRIGGER, "trigger", listener::getTrigger).to(builder::trigger);
        lines.from(Setting.EXCLUSIVE_EDGE, "exclusive-edge", listener::isExclusiveEdge).to(builder::exclusiveEdge);
        lines.from(Setting.EVENTS, "events", listener::getEvents).when((events) -> !events.isEmpty()).as(ServerSettingsFactory::events)
                .to(builder::events);
        lines.from(listener::isReuseAddress).to(builder::reuseAddress);
        lines.from(listener::isReusePort).to(builder::reusePort);
        lines.from(Setting.FAST_OPEN_QUEUE, "fast-open-queue", listener::getFastOpenQueue).to(builder::fastOpenQueue);
        lines.from(Setting.ACCEPT, "accept", listener::getAccept).to(builder::accept);
        lines.from(Setting.MAX_CONNECTIONS, "max-connections", listener::getMaxConnections).to(builder::maxConnections);
        lines.from(Setting.MAX_DATAGRAMS_IN_FLIGHT, "max-datagrams-in-flight", listener::getMaxDatagramsInFlight)
                .to(builder::maxDatagramsInFlight);
        lines.from(Setting.RECEIVE, "receive", listener::getReceive).to(builder::receive);
        lines.from(Setting.COALESCING, "coalescing", listener::getCoalescing).to(builder::coalescing);
        lines.from(Setting.RECEIVE_BATCH, "receive-batch", listener::getReceiveBatch).to(builder::receiveBatch);
        lines.from(Setting.MAX_DATAGRAM_SIZE, "max-datagram-size", listener::getMaxDatagramSize).as(ConnectionSettingsMapper::bytes)
                .to(builder::maxDatagramSize);
        lines.from(Setting.MULTICAST, "multicast", () -> multicast(path + "multicast.", listener.getMulticast())).to(builder::multicast);
        if (listener.isWiretap()) {
            require(listener.getProtocol() == Protocol.TCP, path + "wiretap", true, "The wiretap logs TCP connections; a UDP"
                    + " listener has none.");
            // The first stage added: after TLS, before the application's stages and the framing.
            builder.stage(Wiretap.of(name));
        }
        Heartbeat heartbeat = heartbeat(path + "heartbeat.", listener, beans);
        if (heartbeat != null) {
            // After the wiretap (which shows the pings), before the application's stages and the framing.
            builder.stage(heartbeat);
        }
        ConnectionSettingsMapper.map(lines, listener, builder, this.properties.getHandlerExecutor(), this.messageMapper, beans);
        lines.from(Setting.TLS, "ssl.bundle", () -> tls(path + "ssl.", listener)).to(builder::tls);
        lines.from(Setting.PROXY_PROTOCOL, "proxy-protocol", () -> proxyProtocol(path, listener)).to(builder::proxyProtocol);
        lines.from(Setting.ADMISSION, "admission", () -> admission(path + "admission.", listener.getAdmission())).to(builder::admission);
        lines.named(Setting.TRUSTED_PROXIES, PREFIX + path + "trusted-proxies");
        return builder;
    }

    /** @return the events of the property's names */
    private static int events(Set<ListenerEvent> events) {
        return (events.contains(ListenerEvent.IN) ? Events.IN : 0) | (events.contains(ListenerEvent.HANGUP) ? Events.HANGUP : 0);
    }

    /** @return the PROXY protocol the listener's {@code proxy-protocol} and {@code trusted-proxies} describe, {@code null} for none */
    private static @Nullable ProxyProtocol proxyProtocol(String path, ListenerProperties listener) {
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

    /** @return the heartbeat the listener's {@code heartbeat.*} properties describe, {@code null} for none */
    private static @Nullable Heartbeat heartbeat(String path, ListenerProperties listener, BeanFactory beans) {
        HeartbeatProperties properties = listener.getHeartbeat();
        if (properties.getIdle() == null) {
            require(properties.getPing() == null && properties.getPinger() == null, path + "idle", null,
                    "A heartbeat's ping goes out after its idle time: set it, or leave the ping out.");
            return null;
        }
        require(listener.getProtocol() == Protocol.TCP, path + "idle", properties.getIdle(), "A heartbeat pings TCP connections; a UDP"
                + " listener has none.");
        require((properties.getPing() == null) != (properties.getPinger() == null), path + "ping", properties.getPing(),
                "A heartbeat needs its ping: a text (ping) or a Heartbeat.Pinger bean (pinger), one of the two.");
        require(positive(properties.getIdle()), path + "idle", properties.getIdle(), "It must be positive.");
        require(properties.getTimeout() != null && positive(properties.getTimeout()), path + "timeout", properties.getTimeout(),
                "It must be positive.");
        if (properties.getPing() != null) {
            require(!properties.getPing().isEmpty(), path + "ping", properties.getPing(), "A ping needs at least one character.");
            return Heartbeat.of(properties.getIdle(), properties.getTimeout(),
                    unescaped(path + "ping", properties.getPing(), listener.getCharset()));
        }
        Object pinger;
        try {
            pinger = beans.getBean(properties.getPinger());
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "pinger", properties.getPinger(), "No bean named '"
                    + properties.getPinger() + "' exists.");
        }
        require(pinger instanceof Heartbeat.Pinger, path + "pinger", properties.getPinger(), "The bean '" + properties.getPinger()
                + "' is a " + pinger.getClass().getName() + ", not a Heartbeat.Pinger.");
        return Heartbeat.of(properties.getIdle(), properties.getTimeout(), (Heartbeat.Pinger) pinger);
    }

    /**
     * @return the text's bytes in the charset, its escapes read: {@code \r}, {@code \n}, {@code \t}, {@code \\} and
     * {@code \xHH}, a byte of that value
     */
    static byte[] unescaped(String property, String text, Charset charset) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        StringBuilder run = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                run.append(c);
                continue;
            }
            char next = (i + 1 < text.length()) ? text.charAt(i + 1) : ' ';
            switch (next) {
                case 'r' -> run.append('\r');
                case 'n' -> run.append('\n');
                case 't' -> run.append('\t');
                case '\\' -> run.append('\\');
                case 'x' -> {
                    require(i + 3 < text.length() && text.substring(i + 2, i + 4).matches("[0-9A-Fa-f]{2}"), property, text,
                            "\\x is followed by two hex digits.");
                    bytes.writeBytes(run.toString().getBytes(charset));
                    run.setLength(0);
                    bytes.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                    i += 2;
                }
                default -> throw new InvalidConfigurationPropertyValueException(PREFIX + property, text, "Its escapes are \\r,"
                        + " \\n, \\t, \\\\ and \\xHH; write a backslash as \\\\.");
            }
            i++;
        }
        bytes.writeBytes(run.toString().getBytes(charset));
        return bytes.toByteArray();
    }

    private static boolean positive(Duration duration) {
        return !duration.isNegative() && !duration.isZero();
    }

    /** @return the multicast the listener's {@code multicast.*} properties describe, {@code null} for none */
    static @Nullable Multicast multicast(String path, MulticastProperties properties) {
        if (!properties.isSet()) {
            return null;
        }
        Multicast multicast;
        try {
            multicast = Multicast.NONE.withNetworkInterface(properties.getNetworkInterface()).withHops(properties.getHops())
                    .withLoopback(properties.isLoopback());
        }
        catch (IllegalArgumentException ex) {
            boolean blank = properties.getNetworkInterface() != null && properties.getNetworkInterface().isBlank();
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + (blank ? "network-interface" : "hops"),
                    blank ? properties.getNetworkInterface() : properties.getHops(), ex.getMessage() + ".");
        }
        for (int i = 0; i < properties.getGroups().size(); i++) {
            MulticastProperties.Group group = properties.getGroups().get(i);
            String at = path + "groups[" + i + "].";
            InetAddress address = literal(at + "address", group.getAddress(), true);
            InetAddress source = (group.getSource() != null) ? literal(at + "source", group.getSource(), false) : null;
            try {
                multicast = multicast.join(new Multicast.Group(address, source));
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidConfigurationPropertyValueException(PREFIX + ((source != null && address.isMulticastAddress()) ? at + "source"
                        : at + "address"), (source != null && address.isMulticastAddress()) ? group.getSource() : group.getAddress(),
                        ex.getMessage() + ".");
            }
        }
        return multicast;
    }

    /** @return an IP address written as a literal (no name is looked up) */
    private static InetAddress literal(String property, @Nullable String text, boolean required) {
        require(text != null || !required, property, null, "It must be set: the group's multicast address.");
        try {
            require(text != null && !text.isBlank() && (text.indexOf(':') >= 0 || Character.isDigit(text.charAt(0))), property, text,
                    "It must be an IP address written as one (239.1.2.3, ff15::1), not a host name.");
            return InetAddress.getByName(text);
        }
        catch (java.net.UnknownHostException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, text, "It must be an IP address: " + ex.getMessage() + ".");
        }
    }

    /** @return the rules the listener's {@code admission.*} properties describe, {@code null} for none */
    static @Nullable Admission admission(String path, AdmissionProperties properties) {
        if (!properties.isSet()) {
            return null;
        }
        Admission.Builder admission = Admission.builder();
        admissionPart(path + "allow", properties.getAllow(), () -> admission.allow(properties.getAllow()));
        admissionPart(path + "deny", properties.getDeny(), () -> admission.deny(properties.getDeny()));
        if (properties.getMaxConnectionsPerSource() != null) {
            admissionPart(path + "max-connections-per-source", properties.getMaxConnectionsPerSource(),
                    () -> admission.maxConnectionsPerSource(properties.getMaxConnectionsPerSource()));
        }
        admissionPart(path + "source-prefix", properties.getSourcePrefix().getIpv4() + "/" + properties.getSourcePrefix().getIpv6(),
                () -> admission.sourcePrefixes(properties.getSourcePrefix().getIpv4(), properties.getSourcePrefix().getIpv6()));
        admissionPart(path + "source-rate", properties.getSourceRate().getPerSecond(),
                () -> admission.sourceRate(rate(path + "source-rate.", properties.getSourceRate())));
        admissionPart(path + "listener-rate", properties.getListenerRate().getPerSecond(),
                () -> admission.listenerRate(rate(path + "listener-rate.", properties.getListenerRate())));
        admissionPart(path + "max-sources", properties.getMaxSources(), () -> admission.maxSources(properties.getMaxSources()));
        return admission.build();
    }

    private static @Nullable Rate rate(String path, AdmissionProperties.RateProperties properties) {
        if (!properties.isSet()) {
            return null;
        }
        require(properties.getPerSecond() != null, path + "per-second", null, "A rate needs its connections a second.");
        return (properties.getBurst() != null) ? new Rate(properties.getPerSecond(), properties.getBurst())
                : Rate.perSecond(properties.getPerSecond());
    }

    /** Sets one part of the rules, reporting the runtime's refusal of it against its property. */
    private static void admissionPart(String property, @Nullable Object value, Runnable set) {
        try {
            set.run();
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, ex.getMessage() + ".");
        }
    }

    /** @return the TLS the listener's {@code ssl.*} properties describe, {@code null} for plaintext */
    private @Nullable Tls tls(String path, ListenerProperties listener) {
        SslProperties ssl = listener.getSsl();
        if (ssl.getBundle() == null) {
            require(ssl.getServerNameBundles().isEmpty(), path + "server-name-bundles", null,
                    "Bundles by server name need the listener's own ssl.bundle, for the other names.");
            require(ssl.getApplicationProtocols().isEmpty(), path + "application-protocols", ssl.getApplicationProtocols(),
                    "Application protocols are negotiated in a TLS handshake: set the listener's ssl.bundle too.");
            require(!ssl.isServePlaintext(), path + "serve-plaintext", true,
                    "A listener without TLS serves plaintext already: set the listener's ssl.bundle too, or remove serve-plaintext.");
            require(!ssl.isStartTls(), path + "start-tls", true, "Starting TLS needs TLS to start: set the listener's ssl.bundle too.");
            return null;
        }
        require(listener.getProtocol() == Protocol.TCP, path + "bundle", ssl.getBundle(), "TLS is for TCP listeners.");
        require(ssl.getHandshakeTimeout() != null && ssl.getHandshakeTimeout().compareTo(Duration.ZERO) > 0,
                path + "handshake-timeout", ssl.getHandshakeTimeout(), "It must be positive.");
        SettingSources.requireEngine(PREFIX + path + "provider", ssl.getProvider());
        SslBundle own = this.ssl.bundle(PREFIX + path + "bundle", ssl.getBundle());
        requireTrust(own, ssl.getBundle(), ssl.getClientAuth(), path + "client-auth", ssl.getClientAuth());
        require(!ssl.isServePlaintext() || ssl.getClientAuth() != Tls.ClientAuth.NEED, path + "serve-plaintext", true,
                "A listener whose client-auth is need cannot serve plaintext beside TLS: a plaintext client would be served without"
                        + " a certificate. Set client-auth to want, or remove serve-plaintext.");
        require(!ssl.isStartTls() || !ssl.isServePlaintext(), path + "start-tls", true,
                "A connection begins either with the handshake or in plaintext, as the first bytes decide (serve-plaintext), or in"
                        + " plaintext until its handler starts TLS (start-tls), not both ways: remove one of them.");
        Tls tls = bundleTls(path + "bundle", ssl.getBundle(), own, ssl.getProvider()).withClientAuth(ssl.getClientAuth())
                .withHandshakeTimeout(ssl.getHandshakeTimeout())
                .withApplicationProtocols(SettingSources.applicationProtocols(path + "application-protocols", ssl.getApplicationProtocols()))
                .withPlaintextServed(ssl.isServePlaintext()).withStartTls(ssl.isStartTls());
        for (int i = 0; i < ssl.getServerNameBundles().size(); i++) {
            SslProperties.ServerNameBundle named = ssl.getServerNameBundles().get(i);
            String property = path + "server-name-bundles[" + i + "]";
            require(named.getServerName() != null && !named.getServerName().isBlank(), property + ".server-name", null,
                    "It must be set.");
            require(named.getBundle() != null, property + ".bundle", null, "It must be set.");
            SslBundle bundle = this.ssl.bundle(PREFIX + property + ".bundle", named.getBundle());
            requireTrust(bundle, named.getBundle(), ssl.getClientAuth(), property + ".bundle", named.getBundle());
            tls = tls.withServerNameTls(named.getServerName(), bundleTls(property + ".bundle", named.getBundle(), bundle, ssl.getProvider()));
        }
        return tls;
    }

    /**
     * Refuses client authentication served by a bundle without a trust store, whose context would
     * trust the JDK's public CAs.
     * @param bundle the bundle that serves some connections
     * @param name its name
     * @param clientAuth the listener's client authentication
     * @param property the property reported, below {@code sockstate.listeners.}
     * @param value its value
     */
    private static void requireTrust(SslBundle bundle, String name, Tls.ClientAuth clientAuth, String property, @Nullable Object value) {
        require(clientAuth == Tls.ClientAuth.NONE || bundle.getStores().getTrustStore() != null, property, value,
                "Client certificates are checked against the trust store of the bundle that serves the connection, and SSL bundle '"
                        + name + "' has none (the JDK's public CAs would be trusted): configure its truststore.");
    }

    /**
     * @param property the property that names the bundle, below {@code sockstate.listeners.}
     * @param name the bundle's name
     * @param bundle the bundle
     * @return server TLS of the bundle's context, protocols and ciphers (its {@code options})
     */
    private Tls bundleTls(String property, String name, SslBundle bundle, Tls.Provider provider) {
        Supplier<SSLContext> context = this.ssl.context(PREFIX + property, name);
        String[] protocols = bundle.getOptions().getEnabledProtocols();
        String[] ciphers = bundle.getOptions().getCiphers();
        try {
            // (OpenSSL's engine checks them itself as the server starts.)
            SSLEngine engine = (provider == Tls.Provider.OPENSSL) ? null : context.get().createSSLEngine();
            if (engine != null && protocols != null && protocols.length > 0) {
                engine.setEnabledProtocols(protocols);
            }
            if (engine != null && ciphers != null && ciphers.length > 0) {
                engine.setEnabledCipherSuites(ciphers);
            }
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, name, "The options of SSL bundle '"
                    + name + "' (enabled-protocols, ciphers) name what this JDK does not offer: " + ex.getMessage());
        }
        return Tls.server(context).withProtocols(protocols).withCipherSuites(ciphers)
                .withProvider(provider, (provider == Tls.Provider.JDK) ? null : this.ssl.managers(PREFIX + property, name));
    }

    /**
     * Reports a setting the runtime refused against the property it came from.
     * @param refused the runtime's refusal of a setting made here
     * @return the same, in the words of {@code sockstate.*}, with the refusal as a suppressed exception
     */
    InvalidConfigurationPropertyValueException asProperty(InvalidSettingException refused) {
        return this.sources.asProperty(refused);
    }

    private static void require(boolean valid, String property, @Nullable Object value, String reason) {
        if (!valid) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
        }
    }
}

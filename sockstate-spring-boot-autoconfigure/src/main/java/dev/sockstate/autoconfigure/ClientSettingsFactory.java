package dev.sockstate.autoconfigure;

import static dev.sockstate.autoconfigure.SettingSources.PREFIX;

import dev.sockstate.autoconfigure.ClientProperties.Reconnect;
import dev.sockstate.autoconfigure.FramingProperties.FramingType;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.Setting;
import dev.sockstate.server.client.Backoff;
import dev.sockstate.server.client.ClientHeartbeat;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.tls.Tls;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;

/**
 * Turns {@code sockstate.clients.*} into the runtime's {@link ClientSettings}, as
 * {@link ServerSettingsFactory} does the listeners (what both have through {@link ConnectionSettingsMapper}):
 * the runtime checks the values, and what only the starter knows (the SSL bundles, the backoff's
 * parts) is checked here against its property.
 */
final class ClientSettingsFactory {

    private final SockstateProperties properties;

    private final @Nullable MessageMapper messageMapper;

    private final BundleSslContexts ssl;

    private final SettingSources sources;

    ClientSettingsFactory(SockstateProperties properties, @Nullable MessageMapper messageMapper, BundleSslContexts ssl,
            SettingSources sources) {
        this.properties = properties;
        this.messageMapper = messageMapper;
        this.ssl = ssl;
        this.sources = sources;
    }

    /** @return what the handlers need to know of each client, by name: TCP, framed or not */
    Map<String, ListenerKind> clientKinds() {
        Map<String, ListenerKind> kinds = new LinkedHashMap<>();
        this.properties.getClients().forEach((name, client) -> kinds.put(name, kind(client)));
        return kinds;
    }

    /** @return what the handler needs to know of a client */
    ListenerKind kind(ClientProperties client) {
        return new ListenerKind(Protocol.TCP, client.getFraming().getType() != FramingType.NONE, this.messageMapper);
    }

    /**
     * @param handlers where each client's handler is found once the singletons exist
     * @param beans where the executors and codecs named are
     * @return every client's settings
     */
    List<ClientSettings> clients(ListenerHandlers handlers, BeanFactory beans) {
        List<ClientSettings> clients = new ArrayList<>();
        this.properties.getClients().forEach((name, client) -> clients.add(client(name, client, handlers, beans)));
        return clients;
    }

    private ClientSettings client(String name, ClientProperties client, ListenerHandlers handlers, BeanFactory beans) {
        return client(name, client, handlers.clientHandler(name), beans);
    }

    /**
     * @param name the client's name
     * @param client its properties
     * @param handler its handler
     * @param beans where the executors and codecs named are
     * @return the client's settings
     */
    ClientSettings client(String name, ClientProperties client, ConnectionHandler handler, BeanFactory beans) {
        String path = "clients." + name + ".";
        require(client.getAddress() != null && !client.getAddress().isEmpty(), path + "address", null,
                "It must be set: host:port, such as 127.0.0.1:6379 or [::1]:6379, or several, tried in order.");
        require(client.getConnectTimeout() != null, path + "connect-timeout", null, "It must be set.");
        ClientSettings.Builder builder = ClientSettings.builder(name);
        SettingSources.Lines lines = this.sources.of(Scope.CLIENT, name, path);
        lines.named(Setting.ADDRESS, PREFIX + path + "address");
        client.getAddress().forEach(builder::address);
        lines.from(Setting.CONNECT_TIMEOUT, "connect-timeout", client::getConnectTimeout).to(builder::connectTimeout);
        lines.from(Setting.POOL_SIZE, "pool.size", client.getPool()::getSize).to(builder::poolSize);
        lines.from(Setting.RECONNECT, "reconnect", () -> backoff(path + "reconnect.", client.getReconnect())).to(builder::reconnect);
        lines.from(Setting.REQUEST_TIMEOUT, "request-timeout", client::getRequestTimeout).to(builder::requestTimeout);
        lines.from(Setting.MAX_PENDING_REQUESTS, "max-pending-requests", client::getMaxPendingRequests).to(builder::maxPendingRequests);
        ConnectionSettingsMapper.map(lines, client, builder, this.properties.getHandlerExecutor(), this.messageMapper, beans);
        lines.from(Setting.TLS, "ssl.bundle", () -> tls(path + "ssl.", client.getSsl())).to(builder::tls);
        lines.from(() -> handler).to(builder::handler);
        lines.from(Setting.CLIENT_HEARTBEAT, "heartbeat.idle", () -> heartbeat(path + "heartbeat.", client)).to(builder::heartbeat);
        return builder.build();
    }

    /** @return the heartbeat the {@code heartbeat.*} properties describe, {@code null} for none */
    private static @Nullable ClientHeartbeat heartbeat(String path, ClientProperties client) {
        ClientProperties.Heartbeat properties = client.getHeartbeat();
        if (properties.getIdle() == null) {
            require(properties.getPing() == null, path + "idle", null, "A heartbeat's ping goes out after its idle time: set it, or"
                    + " leave the ping out.");
            return null;
        }
        require(properties.getPing() != null && !properties.getPing().isEmpty(), path + "ping", properties.getPing(),
                "A heartbeat needs its ping: the text of one message, which the client's framing encodes.");
        require(!properties.getIdle().isNegative() && !properties.getIdle().isZero(), path + "idle", properties.getIdle(),
                "It must be positive.");
        require(properties.getTimeout() != null && !properties.getTimeout().isNegative() && !properties.getTimeout().isZero(),
                path + "timeout", properties.getTimeout(), "It must be positive.");
        return new ClientHeartbeat(properties.getIdle(), properties.getTimeout(),
                ServerSettingsFactory.unescaped(path + "ping", properties.getPing(), client.getCharset()));
    }

    private static Backoff backoff(String path, Reconnect reconnect) {
        Duration initial = reconnect.getInitial();
        Duration max = reconnect.getMax();
        require(initial != null && initial.compareTo(Duration.ZERO) > 0, path + "initial", initial, "It must be positive.");
        require(max != null && max.compareTo(initial) >= 0, path + "max", max, "It must be at least reconnect.initial (" + initial + ").");
        require(reconnect.getJitter() >= 0 && reconnect.getJitter() <= 1, path + "jitter", reconnect.getJitter(),
                "It must be between 0 (none) and 1.");
        return new Backoff(initial, max, reconnect.getJitter());
    }

    /** @return the client TLS the {@code ssl.*} properties describe, {@code null} for plaintext */
    private @Nullable Tls tls(String path, ClientProperties.Ssl ssl) {
        if (ssl.getBundle() == null) {
            require(ssl.getServerName() == null, path + "server-name", ssl.getServerName(),
                    "A server name is asked for in a TLS handshake: set the client's ssl.bundle too.");
            require(ssl.getHandshakeTimeout() == null || ssl.getHandshakeTimeout().equals(Tls.DEFAULT_HANDSHAKE_TIMEOUT),
                    path + "handshake-timeout", ssl.getHandshakeTimeout(), "A handshake timeout bounds a TLS handshake: set the client's ssl.bundle too.");
            require(ssl.getApplicationProtocols().isEmpty(), path + "application-protocols", ssl.getApplicationProtocols(),
                    "Application protocols are offered in a TLS handshake: set the client's ssl.bundle too.");
            require(!ssl.isStartTls(), path + "start-tls", true, "Starting TLS needs TLS to start: set the client's ssl.bundle too.");
            return null;
        }
        Duration handshakeTimeout = ssl.getHandshakeTimeout();
        require(handshakeTimeout != null && handshakeTimeout.compareTo(Duration.ZERO) > 0, path + "handshake-timeout", handshakeTimeout,
                "It must be positive.");
        SettingSources.requireEngine(PREFIX + path + "provider", ssl.getProvider());
        SslBundle bundle = this.ssl.bundle(PREFIX + path + "bundle", ssl.getBundle());
        String[] protocols = bundle.getOptions().getEnabledProtocols();
        String[] ciphers = bundle.getOptions().getCiphers();
        var context = this.ssl.context(PREFIX + path + "bundle", ssl.getBundle());
        try {
            // (OpenSSL's engine checks them itself as the client starts.)
            SSLEngine engine = (ssl.getProvider() == Tls.Provider.OPENSSL) ? null : context.get().createSSLEngine();
            if (engine != null && protocols != null && protocols.length > 0) {
                engine.setEnabledProtocols(protocols);
            }
            if (engine != null && ciphers != null && ciphers.length > 0) {
                engine.setEnabledCipherSuites(ciphers);
            }
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "bundle", ssl.getBundle(), "The options of SSL bundle '"
                    + ssl.getBundle() + "' (enabled-protocols, ciphers) name what this JDK does not offer: " + ex.getMessage());
        }
        return Tls.client(context).withServerName(ssl.getServerName()).withHostnameVerification(ssl.isVerifyHostname())
                .withHandshakeTimeout(handshakeTimeout).withProtocols(protocols).withCipherSuites(ciphers)
                .withApplicationProtocols(SettingSources.applicationProtocols(path + "application-protocols", ssl.getApplicationProtocols()))
                .withStartTls(ssl.isStartTls())
                .withProvider(ssl.getProvider(), (ssl.getProvider() == Tls.Provider.JDK) ? null
                        : this.ssl.managers(PREFIX + path + "bundle", ssl.getBundle()));
    }

    private static void require(boolean valid, String property, @Nullable Object value, String reason) {
        if (!valid) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
        }
    }
}

package dev.sockstate.autoconfigure;

import dev.sockstate.autoconfigure.ClientProperties.Reconnect;
import dev.sockstate.autoconfigure.FramingProperties.FramingType;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.client.Backoff;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.tls.Tls;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;

/**
 * Turns {@code sockstate.clients.*} into the runtime's {@link ClientSettings}, as
 * {@link ServerSettingsFactory} does the listeners (whose framing, executors and refusals it shares):
 * the runtime checks the values, and what only the starter knows (the SSL bundles, the backoff's
 * parts) is checked here against its property.
 */
final class ClientSettingsFactory {

    private static final String PREFIX = "sockstate.";

    private final SockstateProperties properties;

    private final MessageMapper messageMapper;

    private final BundleSslContexts ssl;

    ClientSettingsFactory(SockstateProperties properties, MessageMapper messageMapper, BundleSslContexts ssl) {
        this.properties = properties;
        this.messageMapper = messageMapper;
        this.ssl = ssl;
    }

    /** @return what the handlers need to know of each client, by name: TCP, framed or not */
    Map<String, ListenerKind> clientKinds() {
        Map<String, ListenerKind> kinds = new LinkedHashMap<>();
        this.properties.getClients().forEach((name, client) -> kinds.put(name, new ListenerKind(Protocol.TCP,
                client.getFraming().getType() != FramingType.NONE, this.messageMapper)));
        return kinds;
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
        String path = "clients." + name + ".";
        require(client.getAddress() != null && !client.getAddress().isEmpty(), path + "address", null,
                "It must be set: host:port, such as 127.0.0.1:6379 or [::1]:6379, or several, tried in order.");
        require(client.getConnectTimeout() != null, path + "connect-timeout", null, "It must be set.");
        require(client.getCharset() != null, path + "charset", null, "It must be set.");
        require(client.getMaxPendingWriteBytes() != null, path + "max-pending-write-bytes", null, "It must be set.");
        ClientSettings.Builder builder = ClientSettings.builder(name);
        client.getAddress().forEach(builder::address);
        builder.connectTimeout(client.getConnectTimeout()).poolSize(client.getPool().getSize())
                .reconnect(backoff(path + "reconnect.", client.getReconnect())).requestTimeout(client.getRequestTimeout())
                .maxPendingRequests(client.getMaxPendingRequests())
                .idleTimeout(client.getIdleTimeout()).maxPendingWriteBytes(client.getMaxPendingWriteBytes().toBytes())
                .tcpNoDelay(client.isTcpNoDelay()).group(client.getGroup())
                .handlerExecutor((client.getHandlerExecutor() != null)
                        ? ServerSettingsFactory.executor(path + "handler-executor", client.getHandlerExecutor(), beans)
                        : ServerSettingsFactory.executor("handler-executor", this.properties.getHandlerExecutor(), beans))
                .framing(ServerSettingsFactory.framing(path + "framing.", client.getFraming(), client.getCharset(), beans))
                .charset(client.getCharset()).messageMapper(this.messageMapper).tls(tls(path + "ssl.", client.getSsl()))
                .handler(handlers.clientHandler(name));
        if (client.getReceiveBufferSize() != null) {
            builder.receiveBufferSize(ServerSettingsFactory.bytes(client.getReceiveBufferSize()));
        }
        return builder.build();
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
    private Tls tls(String path, ClientProperties.Ssl ssl) {
        if (ssl.getBundle() == null) {
            require(ssl.getServerName() == null, path + "server-name", ssl.getServerName(),
                    "A server name is asked for in a TLS handshake: set the client's ssl.bundle too.");
            return null;
        }
        SslBundle bundle = this.ssl.bundle(PREFIX + path + "bundle", ssl.getBundle());
        String[] protocols = bundle.getOptions().getEnabledProtocols();
        String[] ciphers = bundle.getOptions().getCiphers();
        var context = this.ssl.context(PREFIX + path + "bundle", ssl.getBundle());
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
        return Tls.client(context).withServerName(ssl.getServerName()).withHostnameVerification(ssl.isVerifyHostname())
                .withProtocols(protocols).withCipherSuites(ciphers);
    }

    private static void require(boolean valid, String property, Object value, String reason) {
        if (!valid) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
        }
    }
}

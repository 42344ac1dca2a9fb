package dev.sockstate.autoconfigure;

import dev.sockstate.server.tls.Tls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** TLS of one TCP listener: {@code sockstate.listeners.<name>.ssl.*}, through Spring Boot SSL bundles. */
public class SslProperties {

    /** Name of the SSL bundle (spring.ssl.bundle.pem.NAME or .jks.NAME) with the listener's key, certificate and trust; plaintext when not set. */
    private @Nullable String bundle;

    /** Client authentication: none, want (ask for a certificate) or need (refuse a client without one). */
    private Tls.ClientAuth clientAuth = Tls.ClientAuth.NONE;

    /** How long a connection may take to finish its handshake before it is closed. */
    private Duration handshakeTimeout = Duration.ofSeconds(10);

    /** Application protocols negotiated in the handshake (ALPN), most preferred first, such as h2 or mqtt; a client offering only others is refused. */
    private List<String> applicationProtocols = new ArrayList<>();

    /** Whether a connection whose first bytes are no TLS handshake is served in plaintext on the same port (one port for both, as during a migration to TLS); refused with an alert when off. */
    private boolean servePlaintext;

    /** Whether connections begin in plaintext until their handler calls startTls() on them, as protocols with STARTTLS do. */
    private boolean startTls;

    /** The TLS engine: jdk, openssl (BoringSSL through netty-tcnative, on the class path) or auto (openssl where it loads). */
    private Tls.Provider provider = Tls.Provider.JDK;

    /** Bundles chosen by the server name a client asks for (SNI), each with its own key, options and trust store; other names get the listener's bundle. */
    private List<ServerNameBundle> serverNameBundles = new ArrayList<>();

    public @Nullable String getBundle() {
        return this.bundle;
    }

    public void setBundle(@Nullable String bundle) {
        this.bundle = bundle;
    }

    public Tls.ClientAuth getClientAuth() {
        return this.clientAuth;
    }

    public void setClientAuth(Tls.ClientAuth clientAuth) {
        this.clientAuth = clientAuth;
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

    public boolean isServePlaintext() {
        return this.servePlaintext;
    }

    public void setServePlaintext(boolean servePlaintext) {
        this.servePlaintext = servePlaintext;
    }

    public boolean isStartTls() {
        return this.startTls;
    }

    public void setStartTls(boolean startTls) {
        this.startTls = startTls;
    }

    public Tls.Provider getProvider() {
        return this.provider;
    }

    public void setProvider(Tls.Provider provider) {
        this.provider = provider;
    }

    public List<ServerNameBundle> getServerNameBundles() {
        return this.serverNameBundles;
    }

    public void setServerNameBundles(List<ServerNameBundle> serverNameBundles) {
        this.serverNameBundles = serverNameBundles;
    }

    /** A bundle for one server name, as Spring Boot's web servers take them. */
    public static class ServerNameBundle {

        /** The server name (SNI) a client asks for. */
        private @Nullable String serverName;

        /** Name of the SSL bundle that serves it. */
        private @Nullable String bundle;

        public @Nullable String getServerName() {
            return this.serverName;
        }

        public void setServerName(@Nullable String serverName) {
            this.serverName = serverName;
        }

        public @Nullable String getBundle() {
            return this.bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }
    }
}

package dev.sockstate.server.tls;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * How a TCP listener's connections, or a client's ({@link #client(Supplier)}), are secured with TLS;
 * immutable, each {@code with} method returns a copy. The engine of each connection is made by a server-mode {@link SSLContext} asked
 * of the supplier once per new connection, so a context the application reloads (new certificates)
 * serves the connections accepted after the reload. TLS 1.3 and 1.2 are served as the context
 * allows; client-initiated renegotiation (TLS 1.2) is refused by closing the connection, while a
 * TLS 1.3 key update is answered.
 * <pre>{@code
 * ListenerSettings.tcp("secure").portNumber(7443)
 *         .tls(Tls.server(sslContext).withClientAuth(Tls.ClientAuth.WANT))
 *         .handler(handler).build();
 * }</pre>
 */
public final class Tls {

    /** The handshake's time limit unless told otherwise. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private static final String BOTH_PLAINTEXT = "TLS cannot both serve plaintext beside it (the first bytes decide) and start on"
            + " the handler's request (STARTTLS): a connection begins one way or the other";

    private final Supplier<SSLContext> context;

    private final ClientAuth clientAuth;

    private final String @Nullable [] protocols;

    private final String @Nullable [] cipherSuites;

    private final Duration handshakeTimeout;

    private final Map<String, Tls> serverNames;

    private final @Nullable Executor taskExecutor;

    /** The application protocols (ALPN): a server's, most preferred first; a client's, offered in order. */
    private final List<String> applicationProtocols;

    /** How a connection begins: with the handshake, in plaintext where its first bytes begin none, or in plaintext until its handler starts TLS. */
    private final Opening opening;

    /** A client's side of the handshake: the server name it asks for and checks; {@code null} for a server's TLS. */
    private final @Nullable ClientSide client;

    /** Whose engine serves the connections, and the managers a native one is made of. */
    private final EngineChoice engineChoice;

    private Tls(Supplier<SSLContext> context, ClientAuth clientAuth, String @Nullable [] protocols, String @Nullable [] cipherSuites,
            Duration handshakeTimeout, Map<String, Tls> serverNames, @Nullable Executor taskExecutor, List<String> applicationProtocols,
            Opening opening, @Nullable ClientSide client, EngineChoice engineChoice) {
        this.context = context;
        this.clientAuth = clientAuth;
        this.protocols = protocols;
        this.cipherSuites = cipherSuites;
        this.handshakeTimeout = handshakeTimeout;
        this.serverNames = serverNames;
        this.taskExecutor = taskExecutor;
        this.applicationProtocols = applicationProtocols;
        this.opening = opening;
        this.client = client;
        this.engineChoice = engineChoice;
    }

    /**
     * @param context asked once per new connection for the context its engine is made of
     * @return TLS with that context, no client authentication, the context's protocols and cipher
     * suites, a handshake limit of 10 seconds and the shared task pool
     */
    public static Tls server(Supplier<SSLContext> context) {
        Objects.requireNonNull(context, "TLS needs an SSLContext supplier");
        return new Tls(context, ClientAuth.NONE, null, null, DEFAULT_HANDSHAKE_TIMEOUT, Map.of(), null, List.of(), Opening.HANDSHAKE, null, EngineChoice.JDK);
    }

    /**
     * @param context the context every connection's engine is made of
     * @return TLS with that context, as {@link #server(Supplier)}
     */
    public static Tls server(SSLContext context) {
        Objects.requireNonNull(context, "TLS needs an SSLContext");
        return server(() -> context);
    }

    /**
     * @param clientAuth whether clients are asked for a certificate, {@code null} for {@link ClientAuth#NONE}
     * @return a copy with that client authentication
     * @throws IllegalStateException for {@link ClientAuth#NEED} beside plaintext served ({@link #withPlaintextServed})
     */
    public Tls withClientAuth(@Nullable ClientAuth clientAuth) {
        if (clientAuth == ClientAuth.NEED && this.opening == Opening.PLAINTEXT_OR_HANDSHAKE) {
            throw new IllegalStateException("A listener that serves plaintext beside TLS cannot need client certificates"
                    + " (ClientAuth.NEED): a plaintext client would be served without one");
        }
        return new Tls(this.context, (clientAuth != null) ? clientAuth : ClientAuth.NONE, this.protocols, this.cipherSuites,
                this.handshakeTimeout, this.serverNames, this.taskExecutor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * @param protocols the protocols enabled, such as {@code "TLSv1.3", "TLSv1.2"}; {@code null} or
     * none for the context's defaults
     * @return a copy with those protocols
     */
    public Tls withProtocols(String @Nullable ... protocols) {
        return new Tls(this.context, this.clientAuth, names(protocols, "protocol"), this.cipherSuites, this.handshakeTimeout,
                this.serverNames, this.taskExecutor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * @param cipherSuites the cipher suites enabled; {@code null} or none for the context's defaults,
     * of which a server enables the AEAD suites only (TLS 1.3's, and TLS 1.2's GCM, CCM and
     * ChaCha20-Poly1305: none with CBC's padding oracles) while a client offers them all
     * @return a copy with those cipher suites
     */
    public Tls withCipherSuites(String @Nullable ... cipherSuites) {
        return new Tls(this.context, this.clientAuth, this.protocols, names(cipherSuites, "cipher suite"), this.handshakeTimeout,
                this.serverNames, this.taskExecutor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * @param timeout how long a connection's handshake may take from its accept; a connection still
     * handshaking then is closed
     * @return a copy with that limit
     * @throws IllegalArgumentException when the timeout is not positive
     */
    public Tls withHandshakeTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The TLS handshake timeout must be positive, not " + timeout);
        }
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, timeout, this.serverNames,
                this.taskExecutor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * Chooses the context by the server name a client asks for (SNI): a client naming one of these
     * hosts (compared without regard to case) is served by its context, each asked once per such
     * connection, with this TLS's protocols and cipher suites; a client naming another host, or none,
     * by the default context. Replaces the server names set before.
     * @param byServerName contexts by host name; {@code null} or empty for the default context only
     * @return a copy choosing contexts by server name
     */
    public Tls withServerNames(@Nullable Map<String, Supplier<SSLContext>> byServerName) {
        Map<String, Tls> names = new LinkedHashMap<>();
        if (byServerName != null) {
            byServerName.forEach((name, supplier) -> {
                if (name == null || name.isBlank() || supplier == null) {
                    throw new IllegalArgumentException("A server name needs a name and a context supplier, not " + name + " -> "
                            + supplier);
                }
                names.put(name.toLowerCase(Locale.ROOT), server(supplier));
            });
        }
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout,
                Map.copyOf(names), this.taskExecutor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * Serves a client that asks for this server name (SNI; compared without regard to case) with the
     * given TLS's context, protocols and cipher suites; what it does not name (protocols, cipher
     * suites) is this TLS's. Its context's trust store is the one that checks such a client's
     * certificate; client authentication, the handshake limit, the task executor, the application
     * protocols and whether plaintext is served are this TLS's.
     * @param serverName the host name a client asks for
     * @param named the server TLS that serves it (its own server names, client authentication,
     * handshake limit, task executor, application protocols and plaintext are not used)
     * @return a copy that serves that name so, beside the names set before
     */
    public Tls withServerNameTls(String serverName, Tls named) {
        if (serverName == null || serverName.isBlank() || named == null || named.isClient()) {
            throw new IllegalArgumentException("A server name needs a name and a server's TLS, not " + serverName + " -> " + named);
        }
        Map<String, Tls> names = new LinkedHashMap<>(this.serverNames);
        names.put(serverName.toLowerCase(Locale.ROOT), named);
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout,
                Map.copyOf(names), this.taskExecutor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * @param executor where the engines' delegated tasks (key exchange, certificate checks) run,
     * never on a worker: the connection's stage goes on on its worker once they ran; {@code null}
     * for a small shared pool of daemon threads
     * @return a copy with that executor
     */
    public Tls withTaskExecutor(@Nullable Executor executor) {
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                executor, this.applicationProtocols, this.opening, this.client, this.engineChoice);
    }

    /**
     * The application protocols negotiated in the handshake (ALPN, RFC 7301), such as {@code "h2"},
     * {@code "http/1.1"} or {@code "mqtt"}. A server picks the first of its own list that the client
     * offers; a client that offers only others fails the handshake with a {@code no_application_protocol}
     * alert, and one that offers none is served without one. A client offers the list in order, and
     * is served without one by a server that picks none. Either way the handler reads what was chosen
     * with {@link dev.sockstate.server.Connection#applicationProtocol()}. On a server, they apply to
     * every context chosen by server name too.
     * @param names the protocols' names, most preferred first: printable ASCII without spaces, at most
     * 255 characters each, no name twice; none for no ALPN
     * @return a copy with those application protocols
     * @throws IllegalArgumentException for a name that cannot be one
     */
    public Tls withApplicationProtocols(String @Nullable ... names) {
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                this.taskExecutor, checkedApplicationProtocols(names), this.opening, this.client, this.engineChoice);
    }

    /**
     * @param names application protocol names, as {@link #withApplicationProtocols} takes them
     * @return them, checked, in order; empty for none
     * @throws IllegalArgumentException naming the first that cannot be an application protocol's name, and why
     */
    public static List<String> checkedApplicationProtocols(String @Nullable ... names) {
        if (names == null || names.length == 0) {
            return List.of();
        }
        List<String> checked = new ArrayList<>(names.length);
        for (String name : names) {
            String why = (name == null) ? "it is null" : name.isEmpty() ? "it is empty"
                    : (name.length() > 255) ? "it is longer than 255 characters"
                    : !name.chars().allMatch((c) -> c > 0x20 && c < 0x7f) ? "it has a character that is not printable ASCII (or a space)"
                    : checked.contains(name) ? "it is named twice" : null;
            if (why != null) {
                throw new IllegalArgumentException("'" + name + "' cannot be an application protocol (ALPN) name: " + why
                        + "; the names were " + Arrays.toString(names));
            }
            checked.add(name);
        }
        return List.copyOf(checked);
    }

    /** @return the application protocols (ALPN), most preferred first; empty for none */
    public List<String> applicationProtocols() {
        return this.applicationProtocols;
    }

    /**
     * Serves TLS and plaintext on one port (port unification), as during a migration to TLS: a
     * connection whose first bytes are not a TLS handshake is served in plaintext, its handler seeing
     * no {@link dev.sockstate.server.Connection#tlsSession() TLS session}; one whose first byte begins
     * a handshake is served TLS as before. The first bytes decide, so the listener's protocol is one
     * whose client speaks first and whose first byte is never 22 (a TLS handshake record) or above 127
     * (an SSL 2 hello): text protocols, HTTP, RESP. Off (the default), plaintext is refused with an alert.
     * @param served whether plaintext connections are served
     * @return a copy that serves them, or not
     * @throws IllegalStateException to serve them on a client's TLS, or beside {@link ClientAuth#NEED}
     */
    public Tls withPlaintextServed(boolean served) {
        if (served && this.client != null) {
            throw new IllegalStateException("Only a server's TLS serves plaintext beside it (Tls.server)");
        }
        if (served && this.clientAuth == ClientAuth.NEED) {
            throw new IllegalStateException("A listener that needs client certificates (ClientAuth.NEED) cannot serve plaintext beside"
                    + " TLS: a plaintext client would be served without one");
        }
        if (served && this.opening == Opening.PLAINTEXT_UNTIL_STARTED) {
            throw new IllegalStateException(BOTH_PLAINTEXT);
        }
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                this.taskExecutor, this.applicationProtocols,
                served ? Opening.PLAINTEXT_OR_HANDSHAKE : (this.opening == Opening.PLAINTEXT_OR_HANDSHAKE) ? Opening.HANDSHAKE : this.opening,
                this.client, this.engineChoice);
    }

    /** @return whether a server serves connections whose first bytes are no TLS handshake in plaintext, on its port */
    public boolean plaintextServed() {
        return this.opening == Opening.PLAINTEXT_OR_HANDSHAKE;
    }

    /**
     * Begins each connection in plaintext, as protocols that upgrade do (STARTTLS in SMTP, IMAP, XMPP,
     * LDAP; PostgreSQL's and others' requests for TLS): the handler reads and writes plaintext until
     * its protocol says to secure the connection, then calls {@link dev.sockstate.server.Connection#startTls()},
     * and the handshake begins (the client's hello, on a client). What the handler wrote before the
     * call goes out in plaintext, what it writes after once the handshake ended; the bytes that came
     * after the command that asked for TLS are the handshake's, never handed to the handler as
     * plaintext (a client that pipelined commands after it fails the handshake). A connection that
     * never starts TLS stays plaintext. Client authentication, application protocols, server names
     * and the handshake's limit (counted from the call) apply to the handshake once started.
     * @param startTls whether connections begin in plaintext until their handler starts TLS
     * @return a copy that begins them so, or with the handshake
     * @throws IllegalStateException beside {@link #withPlaintextServed plaintext served}
     */
    public Tls withStartTls(boolean startTls) {
        if (startTls && this.opening == Opening.PLAINTEXT_OR_HANDSHAKE) {
            throw new IllegalStateException(BOTH_PLAINTEXT);
        }
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                this.taskExecutor, this.applicationProtocols,
                startTls ? Opening.PLAINTEXT_UNTIL_STARTED : (this.opening == Opening.PLAINTEXT_UNTIL_STARTED) ? Opening.HANDSHAKE : this.opening,
                this.client, this.engineChoice);
    }

    /** @return whether connections begin in plaintext until their handler starts TLS ({@link #withStartTls}) */
    public boolean startsTlsOnRequest() {
        return this.opening == Opening.PLAINTEXT_UNTIL_STARTED;
    }

    /**
     * TLS for a client's connections: the client begins the handshake, asks for the server name (SNI)
     * and checks that the server's certificate names it, as HTTPS does.
     * @param context asked once per new connection for the context its engine is made of (its trust
     * store decides which servers are trusted)
     * @return client TLS with that context, the server name the client's host (see {@link #withServerName}),
     * the host name checked, a handshake limit of 10 seconds
     */
    public static Tls client(Supplier<SSLContext> context) {
        Objects.requireNonNull(context, "TLS needs an SSLContext supplier");
        return new Tls(context, ClientAuth.NONE, null, null, DEFAULT_HANDSHAKE_TIMEOUT, Map.of(), null, List.of(), Opening.HANDSHAKE,
                new ClientSide(null, true), EngineChoice.JDK);
    }

    /**
     * @param context the context every connection's engine is made of
     * @return client TLS with that context, as {@link #client(Supplier)}
     */
    public static Tls client(SSLContext context) {
        Objects.requireNonNull(context, "TLS needs an SSLContext");
        return client(() -> context);
    }

    /**
     * @param serverName the host name a client asks for and checks the certificate against; {@code null}
     * for the host of the address it connects to
     * @return a copy with that server name
     * @throws IllegalStateException on a server's TLS
     */
    public Tls withServerName(@Nullable String serverName) {
        requireClient("a server name to ask for");
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                this.taskExecutor, this.applicationProtocols, this.opening, new ClientSide((serverName == null || serverName.isBlank()) ? null : serverName,
                        this.client.verifyHostname()), this.engineChoice);
    }

    /**
     * @param verify whether a client checks that the server's certificate names the server (on unless
     * turned off; off, any certificate the trust store trusts is taken, for any host)
     * @return a copy that checks the host name, or not
     * @throws IllegalStateException on a server's TLS
     */
    public Tls withHostnameVerification(boolean verify) {
        requireClient("host name verification");
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                this.taskExecutor, this.applicationProtocols, this.opening, new ClientSide(this.client.serverName(), verify), this.engineChoice);
    }

    private void requireClient(String what) {
        if (this.client == null) {
            throw new IllegalStateException("Only a client's TLS has " + what + " (Tls.client)");
        }
    }

    /** @return whether it is a client's TLS, which begins the handshake ({@link #client(Supplier)}) */
    public boolean isClient() {
        return this.client != null;
    }

    /** @return the server name a client asks for and checks, {@code null} for the host it connects to (or on a server) */
    public @Nullable String serverName() {
        return (this.client != null) ? this.client.serverName() : null;
    }

    /** @return whether a client checks the server's certificate against the server name; false on a server */
    public boolean verifiesHostname() {
        return this.client != null && this.client.verifyHostname();
    }

    /** @return the supplier of the default context */
    public Supplier<SSLContext> context() {
        return this.context;
    }

    /**
     * Chooses the library whose engine serves the connections: the JDK's, OpenSSL's (BoringSSL through
     * netty-tcnative, as Netty, Vert.x and gRPC run it), or OpenSSL's where it loads and else the
     * JDK's. The native engine is made of key and trust managers rather than of an {@link SSLContext}:
     * the supplier is asked once per new connection, as the context's is, and a native context is made
     * once per managers it gives (new managers' off the workers, on the task executor, the connections
     * meanwhile served by the last). Each connection's native engine is freed when the connection ends. Everything else (client authentication,
     * protocols, cipher suites, server names, application protocols, renegotiation refused) is served
     * alike by either engine; a context chosen by server name needs managers of its own
     * ({@link #withProvider} on the TLS given to {@link #withServerNameTls}).
     * @param provider whose engine; {@code null} for {@link Provider#JDK}
     * @param managers asked once per new connection for the key and trust managers a native engine is
     * made of; {@code null} only for {@link Provider#JDK}
     * @return a copy with that engine
     * @throws IllegalArgumentException for a native or automatic choice without managers
     */
    public Tls withProvider(@Nullable Provider provider, @Nullable Supplier<TlsManagers> managers) {
        Provider chosen = (provider != null) ? provider : Provider.JDK;
        if (chosen != Provider.JDK && managers == null) {
            throw new IllegalArgumentException("The " + chosen + " TLS engine is made of key and trust managers: give their supplier");
        }
        return new Tls(this.context, this.clientAuth, this.protocols, this.cipherSuites, this.handshakeTimeout, this.serverNames,
                this.taskExecutor, this.applicationProtocols, this.opening, this.client,
                (chosen == Provider.JDK) ? EngineChoice.JDK : new EngineChoice(chosen, managers));
    }

    /**
     * @return why OpenSSL's engine ({@link Provider#OPENSSL}) does not load in this process, {@code null}
     *     when it does: found once, on the first call
     */
    public static @Nullable Throwable openSslUnavailability() {
        return OpenSslProbe.CAUSE;
    }

    /** @return whose engine serves the connections ({@link #withProvider}) */
    public Provider provider() {
        return this.engineChoice.provider();
    }

    /** @return the supplier of the managers a native engine is made of; {@code null} for the JDK's engine */
    public @Nullable Supplier<TlsManagers> managers() {
        return this.engineChoice.managers();
    }

    /** @return whether clients are asked for a certificate */
    public ClientAuth clientAuth() {
        return this.clientAuth;
    }

    /** @return the protocols enabled (a copy), {@code null} for the context's defaults */
    public String @Nullable [] protocols() {
        return (this.protocols != null) ? this.protocols.clone() : null;
    }

    /** @return the cipher suites enabled (a copy), {@code null} for the context's defaults (a server's AEAD ones) */
    public String @Nullable [] cipherSuites() {
        return (this.cipherSuites != null) ? this.cipherSuites.clone() : null;
    }

    /** @return how long a handshake may take */
    public Duration handshakeTimeout() {
        return this.handshakeTimeout;
    }

    /** @return the TLS chosen by server name, keys in lower case; empty when the default serves every name */
    public Map<String, Tls> serverNames() {
        return this.serverNames;
    }

    /** @return where delegated tasks run: the executor given, or the shared pool */
    public Executor taskExecutor() {
        return (this.taskExecutor != null) ? this.taskExecutor : TaskPool.shared();
    }

    /**
     * @param serverName the name a client asked for, or {@code null}
     * @return the TLS whose context serves it: the one set for that name, or this
     */
    public Tls forServerName(@Nullable String serverName) {
        Tls named = (serverName != null && !this.serverNames.isEmpty()) ? this.serverNames.get(serverName.toLowerCase(Locale.ROOT)) : null;
        return (named != null) ? named : this;
    }

    private static String @Nullable [] names(String @Nullable [] names, String what) {
        if (names == null || names.length == 0) {
            return null;
        }
        for (String name : names) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("A blank " + what + " name in " + Arrays.toString(names));
            }
        }
        return names.clone();
    }

    @Override
    public String toString() {
        if (this.client != null) {
            return "client TLS (server name " + ((this.client.serverName() != null) ? this.client.serverName() : "the host's")
                    + ", host name " + (this.client.verifyHostname() ? "checked" : "not checked") + ", handshake within "
                    + this.handshakeTimeout + engineName() + alpn() + startTls() + ")";
        }
        return "TLS (client auth " + this.clientAuth + engineName() + ", protocols " + ((this.protocols != null) ? String.join(", ", this.protocols)
                : "the context's") + ", handshake within " + this.handshakeTimeout
                + (this.serverNames.isEmpty() ? "" : ", contexts for " + this.serverNames.keySet()) + alpn()
                + ((this.opening == Opening.PLAINTEXT_OR_HANDSHAKE) ? ", plaintext served" : "") + startTls() + ")";
    }

    private String engineName() {
        return (this.engineChoice.provider() == Provider.JDK) ? "" : ", engine " + this.engineChoice.provider();
    }

    private String startTls() {
        return (this.opening == Opening.PLAINTEXT_UNTIL_STARTED) ? ", started by the handler (STARTTLS)" : "";
    }

    private String alpn() {
        return this.applicationProtocols.isEmpty() ? "" : ", application protocols " + String.join(", ", this.applicationProtocols);
    }

    /** How a connection begins. */
    private enum Opening {

        /** With the handshake. */
        HANDSHAKE,

        /** With the handshake when its first byte begins one, else in plaintext for good (a server's). */
        PLAINTEXT_OR_HANDSHAKE,

        /** In plaintext, until the handler starts TLS. */
        PLAINTEXT_UNTIL_STARTED
    }

    /** Whose engine, and what a native one is made of. */
    private record EngineChoice(Provider provider, @Nullable Supplier<TlsManagers> managers) {

        static final EngineChoice JDK = new EngineChoice(Provider.JDK, null);
    }

    /** The library whose TLS engine serves the connections. */
    public enum Provider {

        /** The JDK's own engine, of the {@link SSLContext} the context supplier gives. */
        JDK,

        /**
         * OpenSSL's: BoringSSL through netty-tcnative ({@code io.netty:netty-handler} and
         * {@code io.netty:netty-tcnative-boringssl-static} on the class path); a server or client fails
         * to start, naming the cause, where it does not load.
         */
        OPENSSL,

        /** OpenSSL's where it loads, else the JDK's (said once in an INFO line, with the cause). */
        AUTO
    }

    /** A client's side of the handshake. */
    private record ClientSide(@Nullable String serverName, boolean verifyHostname) {
    }

    /** Whether a client is asked for a certificate during the handshake. */
    public enum ClientAuth {

        /** Not asked. */
        NONE,

        /** Asked; a client without one is served all the same. */
        WANT,

        /** Required; a client without one (or with one the context does not trust) fails the handshake. */
        NEED
    }
}

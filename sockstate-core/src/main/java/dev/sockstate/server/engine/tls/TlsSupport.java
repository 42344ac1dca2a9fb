package dev.sockstate.server.engine.tls;

import dev.sockstate.port.LendingPool;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.Setting;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.tls.Tls;
import java.nio.ByteBuffer;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;

/**
 * What the TLS stages of one listener's connections share: the settings, the observer, the task
 * executor, and the buffers lent for one call, so that a connection keeps none between reads. A
 * record is unwrapped from the read buffer into a lent plaintext buffer and passed on from there;
 * what is written is wrapped into a lent packet buffer and passed on to the socket, which copies
 * only what it does not take. Both are direct, like the worker's read buffer; while every buffer is
 * lent, a call uses a heap buffer of its own, as large as one record, which it drops afterwards.
 */
public final class TlsSupport {

    /** The lent buffers' room: several records of up to 16 KiB each, so that one call rarely needs more. */
    public static final int ROOM = 64 * 1024;

    /** Buffers of each kind a listener lends at most; more calls at once use buffers of their own. */
    public static final int MOST_LENT = 64;

    final Tls settings;

    final ListenerObserver observer;

    final Executor taskExecutor;


    /** Whether the context is chosen by the client's server name, which waits for its ClientHello. */
    final boolean byServerName;

    /** The application protocols (ALPN) every engine negotiates, {@code null} for none. */
    private final String @Nullable [] applicationProtocols;

    /**
     * Bytes a connection keeps at most while its engine's tasks run (the input held, the rest of the
     * read at hand waits: up to a read buffer, after what the handshake held), or of unfinished records.
     */
    final int mostHeld;

    /** A server's default cipher suites: its context's, less those that are not AEAD. */
    private final AeadSuites aead = new AeadSuites();

    /** OpenSSL's engines when the settings chose them and they load; {@code null} for the JDK's. */
    private final @Nullable OpenSslEngines openSsl;

    private final LendingPool<ByteBuffer> packets = new LendingPool<>(() -> ByteBuffer.allocateDirect(ROOM), MOST_LENT);

    private final LendingPool<ByteBuffer> plaintexts = new LendingPool<>(() -> ByteBuffer.allocateDirect(ROOM), MOST_LENT);

    /**
     * @param settings the TLS settings
     * @param observer the listener's or client's observer
     * @param readBufferSize the most one read of the connections brings: their worker group's read buffer
     */
    public TlsSupport(Tls settings, ListenerObserver observer, int readBufferSize) {
        this.settings = settings;
        this.mostHeld = Math.max(256 * 1024, readBufferSize + TlsStage.MOST_HELD_HANDSHAKING);
        this.observer = observer;
        this.taskExecutor = settings.taskExecutor();
        this.byServerName = !settings.serverNames().isEmpty();
        this.applicationProtocols = settings.applicationProtocols().isEmpty() ? null : settings.applicationProtocols().toArray(new String[0]);
        if (NativeTls.chosen(settings)) {
            Throwable unavailable = NativeTls.unavailability();
            if (unavailable != null) {
                throw new IllegalStateException("OpenSSL's TLS engine does not load here: " + unavailable, unavailable);
            }
            this.openSsl = new OpenSslEngines(settings.isClient(), this.applicationProtocols, this.taskExecutor);
            this.openSsl.warm(settings);
        }
        else {
            this.openSsl = null;
        }
    }

    /** @return whether the connections' engines are OpenSSL's (native) rather than the JDK's */
    public boolean nativeEngines() {
        return this.openSsl != null;
    }

    /** @return native engines made and not yet released (their connections not yet ended); 0 for the JDK's */
    public long liveNativeEngines() {
        return (this.openSsl != null) ? this.openSsl.live() : 0;
    }

    /**
     * Frees what the engine holds outside the heap (a native engine's memory), once; nothing for the JDK's.
     * @param engine an engine {@link #engine} made, its connection ended
     */
    public void release(SSLEngine engine) {
        if (this.openSsl != null) {
            this.openSsl.release(engine);
        }
    }

    /**
     * @return whether a server must check the application protocols a ClientHello offers itself: the
     * native engine goes on without one where none matches, which the JDK's refuses with an alert
     */
    boolean checksOfferedProtocols() {
        return this.openSsl != null && this.applicationProtocols != null && !this.settings.isClient();
    }

    /** @return the application protocols (ALPN) served, most preferred first; {@code null} for none */
    String @Nullable [] applicationProtocols() {
        return this.applicationProtocols;
    }

    /**
     * @return bytes of the direct buffers made to lend the connections' turns (records and their plaintext),
     *     lent now or idle: at most {@value #MOST_LENT} of each, of {@value #ROOM} bytes
     */
    public long pooledBufferBytes() {
        return (long) (this.packets.made() + this.plaintexts.made()) * ROOM;
    }

    /**
     * Checks that the JDK's engine takes the protocols and cipher suites the settings name, for the
     * default context and each chosen by server name, so that a name it does not offer fails the
     * server's start rather than every handshake. A context is asked only when its settings name either.
     * @param listener the listener's name
     * @param tls its TLS settings
     * @throws InvalidSettingException naming the listener, its TLS setting and what the engine refused
     */
    public static void check(String listener, Tls tls) {
        check(Setting.Scope.LISTENER, listener, tls);
    }

    /**
     * As {@link #check(String, Tls)}, for a listener's or a client's TLS.
     * @param scope whose TLS: a listener's or a client's
     * @param listener the listener's or client's name
     * @param tls its TLS settings
     * @throws InvalidSettingException naming the listener or client, its TLS setting and what the engine refused
     */
    public static void check(Setting.Scope scope, String listener, Tls tls) {
        if (NativeTls.chosen(tls)) {
            Throwable unavailable = NativeTls.unavailability();
            if (unavailable != null) {
                throw InvalidSettingException.mustBe(scope, listener, Setting.TLS, tls, "an engine that loads here: OpenSSL's does not ("
                        + unavailable + (unavailable.getCause() != null ? ": " + unavailable.getCause() : "") + ")");
            }
            tls.serverNames().forEach((name, named) -> {
                if (named.managers() == null) {
                    throw InvalidSettingException.mustBe(scope, listener, Setting.TLS, tls, "key and trust managers for the server name '"
                            + name + "' too, for OpenSSL's engine (Tls.withProvider on its TLS)");
                }
            });
            checkNative(scope, listener, tls, tls);
            tls.serverNames().values().forEach((named) -> checkNative(scope, listener, tls, named));
            return;
        }
        check(scope, listener, tls, tls);
        tls.serverNames().values().forEach((named) -> check(scope, listener, tls, named));
    }

    private static void checkNative(Setting.Scope scope, String listener, Tls tls, Tls served) {
        String[] protocols = protocols(tls, served);
        String[] cipherSuites = cipherSuites(tls, served);
        OpenSslEngines engines = new OpenSslEngines(tls.isClient(), null, Runnable::run);
        SSLEngine engine;
        try {
            engine = engines.engine(served, null, -1);
        }
        catch (Exception | LinkageError ex) {
            // The native context is made as the listener or client starts: managers that make none fail the start.
            throw InvalidSettingException.mustBe(scope, listener, Setting.TLS, tls, "key and trust managers that OpenSSL's TLS engine"
                    + " is made of" + ((served != tls) ? " (for a server name)" : "") + ", which they are not: " + ex);
        }
        try {
            enable(scope, listener, tls, engine, "OpenSSL's TLS engine", protocols, cipherSuites);
        }
        finally {
            engines.release(engine);
        }
    }

    private static void check(Setting.Scope scope, String listener, Tls tls, Tls served) {
        String[] protocols = protocols(tls, served);
        String[] cipherSuites = cipherSuites(tls, served);
        if (protocols == null && cipherSuites == null) {
            return;
        }
        SSLEngine engine;
        try {
            SSLContext context = served.context().get();
            if (context == null) {
                return;
            }
            engine = context.createSSLEngine();
        }
        catch (RuntimeException ex) {
            // A context that cannot be made now fails each handshake, counted as "configuration".
            return;
        }
        enable(scope, listener, tls, engine, "this JDK's TLS engine", protocols, cipherSuites);
    }

    /**
     * Enables the settings' protocols and cipher suites on an engine made to check them.
     * @throws InvalidSettingException naming the listener or client and what the engine refused
     */
    private static void enable(Setting.Scope scope, String listener, Tls tls, SSLEngine engine, String engineName,
            String @Nullable [] protocols, String @Nullable [] cipherSuites) {
        try {
            if (protocols != null) {
                engine.setEnabledProtocols(protocols);
            }
            if (cipherSuites != null) {
                engine.setEnabledCipherSuites(cipherSuites);
            }
        }
        catch (IllegalArgumentException ex) {
            throw InvalidSettingException.mustBe(scope, listener, Setting.TLS, tls, "protocols and cipher suites " + engineName
                    + " offers (" + ex.getMessage() + "; it offers " + String.join(", ", engine.getSupportedProtocols()) + ")");
        }
    }

    /** @return the protocols a connection served by {@code served} enables: its own, else the listener's */
    private static String @Nullable [] protocols(Tls tls, Tls served) {
        return (served.protocols() != null) ? served.protocols() : tls.protocols();
    }

    /** @return the cipher suites a connection served by {@code served} enables: its own, else the listener's */
    private static String @Nullable [] cipherSuites(Tls tls, Tls served) {
        return (served.cipherSuites() != null) ? served.cipherSuites() : tls.cipherSuites();
    }

    /**
     * @param served the settings whose context serves the connection ({@link Tls#forServerName}),
     * the context asked now
     * @return a server-mode engine as the settings say, its handshake begun
     * @throws Exception when the context or the settings do not make one
     */
    public SSLEngine engine(Tls served) throws Exception {
        return engine(served, null, -1);
    }

    /**
     * @param served the settings whose context serves the connection: these, or on a server those
     * chosen by the client's server name, whose protocols and cipher suites apply where they name any
     * @param host a client's connection's host, the server name it asks for and checks unless the
     * settings name one; {@code null} on a server
     * @param port a client's connection's port
     * @return an engine as the settings say, in client or server mode, its handshake begun
     * @throws Exception when the context or the settings do not make one
     */
    public SSLEngine engine(Tls served, @Nullable String host, int port) throws Exception {
        boolean client = this.settings.isClient();
        String serverName = (this.settings.serverName() != null) ? this.settings.serverName() : host;
        // The context the engine was made of, whose default cipher suites a server narrows to the AEAD ones; none for a
        // native engine, whose context has only those.
        Object made;
        SSLEngine engine;
        if (this.openSsl != null) {
            made = null;
            engine = this.openSsl.engine(served, serverName, port);
        }
        else {
            SSLContext context = served.context().get();
            if (context == null) {
                throw new IllegalStateException("The TLS context supplier gave no SSLContext");
            }
            made = context;
            engine = client ? context.createSSLEngine(serverName, port) : context.createSSLEngine();
        }
        try {
            configure(engine, made, served, client, serverName);
        }
        catch (Exception | LinkageError ex) {
            release(engine);
            throw ex;
        }
        return engine;
    }

    private void configure(SSLEngine engine, @Nullable Object made, Tls served, boolean client, @Nullable String serverName)
            throws Exception {
        engine.setUseClientMode(client);
        // The native engine takes its application protocols from its context.
        String[] applicationProtocols = (this.openSsl != null) ? null : this.applicationProtocols;
        if (client || applicationProtocols != null) {
            SSLParameters parameters = engine.getSSLParameters();
            if (client && this.settings.verifiesHostname()) {
                // The JDK then checks the server's certificate against the engine's host, as HTTPS does.
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
            }
            if (client && serverName != null && !isLiteralAddress(serverName)) {
                parameters.setServerNames(List.of(new SNIHostName(serverName)));
            }
            if (applicationProtocols != null) {
                // A server picks the first of its own it is offered, and refuses a client that offers only others.
                parameters.setApplicationProtocols(applicationProtocols);
            }
            engine.setSSLParameters(parameters);
        }
        String[] protocols = protocols(this.settings, served);
        if (protocols != null) {
            engine.setEnabledProtocols(protocols);
        }
        String[] cipherSuites = cipherSuites(this.settings, served);
        if (cipherSuites == null && !client && made != null) {
            cipherSuites = this.aead.of(made, engine);
        }
        if (cipherSuites != null) {
            // (An engine given a list keeps a copy of its own, about 100 B a connection.)
            engine.setEnabledCipherSuites(cipherSuites);
        }
        switch (client ? Tls.ClientAuth.NONE : this.settings.clientAuth()) {
            case NEED -> engine.setNeedClientAuth(true);
            case WANT -> engine.setWantClientAuth(true);
            default -> engine.setNeedClientAuth(false);
        }
        engine.beginHandshake();
    }

    /** @return whether the host is an IPv4 or IPv6 literal, which SNI does not carry */
    private static boolean isLiteralAddress(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch((c) -> c == '.' || (c >= '0' && c <= '9'));
    }

    /**
     * @param engine the engine that wraps into it
     * @return a buffer to wrap into, cleared: lent, or a heap buffer of the call's own, as large as one record
     */
    public ByteBuffer packetBuffer(SSLEngine engine) {
        ByteBuffer lent = this.packets.borrow();
        return (lent != null) ? lent.clear() : ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    }

    /**
     * @param engine the engine that unwraps into it
     * @return a buffer to unwrap into, cleared: lent, or a heap buffer of the call's own, as large as one record's plaintext
     */
    public ByteBuffer plaintextBuffer(SSLEngine engine) {
        ByteBuffer lent = this.plaintexts.borrow();
        return (lent != null) ? lent.clear() : ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    }

    /** @param buffer a buffer {@link #packetBuffer} gave, or {@code null}: given back if lent */
    public void releasePacket(@Nullable ByteBuffer buffer) {
        if (buffer != null && buffer.isDirect()) {
            this.packets.giveBack(buffer);
        }
    }

    /** @param buffer a buffer {@link #plaintextBuffer} gave, or {@code null}: given back if lent */
    public void releasePlaintext(@Nullable ByteBuffer buffer) {
        if (buffer != null && buffer.isDirect()) {
            this.plaintexts.giveBack(buffer);
        }
    }

    /**
     * @param failure what an engine threw
     * @return the observer's word for it: {@code certificate} for a certificate missing or not
     * trusted, {@code plaintext} for bytes that are no TLS, {@code application-protocol} for no
     * application protocol (ALPN) both sides name, {@code protocol} for the rest
     */
    static String reason(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CertificateException || cause instanceof CertPathValidatorException
                    || cause instanceof CertPathBuilderException) {
                return "certificate";
            }
            String message = (cause.getMessage() != null) ? cause.getMessage().toLowerCase(Locale.ROOT) : "";
            if (message.contains("certificate") || message.contains("pkix") || message.contains("unknown_ca")) {
                return "certificate";
            }
            if (message.contains("unrecognized ssl message") || message.contains("plaintext")) {
                return "plaintext";
            }
            if (message.contains("application layer protocol") || message.contains("no_application_protocol")) {
                return "application-protocol";
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return "protocol";
    }

    /** @return whether connections begin in plaintext until their handler starts TLS (STARTTLS) */
    public boolean startsOnRequest() {
        return this.settings.startsTlsOnRequest();
    }
}

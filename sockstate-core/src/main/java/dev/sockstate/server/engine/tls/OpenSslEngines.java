package dev.sockstate.server.engine.tls;

import dev.sockstate.server.tls.Tls;
import dev.sockstate.server.tls.TlsManagers;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCounted;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * The native TLS engines of one listener or client: OpenSSL's (BoringSSL through netty-tcnative) by
 * way of Netty's engine, the only class that names Netty. A native context is made once per managers
 * the settings' supplier gives (compared by their parts, each by identity), with session tickets
 * (under keys BoringSSL rotates) and a session cache, so that clients resume: the first ones as the
 * listener or client starts, those of reloaded managers on the task executor while the connections
 * meanwhile get the last one (a worker makes one only when the start could not). A context no
 * engine holds any more is freed by Netty's finalizer once collected (not at all where the JVM runs
 * no finalizers); each engine holds native memory until {@link #release}, which the connection's end
 * calls. As with the JDK's engine, the handshake's callbacks into Java (the key and trust managers)
 * come back as delegated tasks, which the stage runs off the worker.
 */
final class OpenSslEngines {

    private static final System.Logger logger = System.getLogger(OpenSslEngines.class.getName());

    /**
     * What an engine copies a heap buffer into when it is handed one (a partial record the stage held,
     * a heap buffer of a turn's own when every lent one is in use): native memory of its own each
     * time, never a pool whose lock could park a worker.
     */
    private static final ByteBufAllocator ALLOCATOR = new UnpooledByteBufAllocator(true, true, true);

    private final boolean client;

    private final @Nullable ApplicationProtocolConfig applicationProtocols;

    /** The last native context made for each settings (the listener's, and each chosen by server name), with its managers. */
    private final Map<Tls, Made> contexts = new IdentityHashMap<>();

    /** For each settings, the reloaded managers whose context is being made, or could not be: not asked for again. */
    private final Map<Tls, TlsManagers> pending = new IdentityHashMap<>();

    /** Where the contexts of reloaded managers are made. */
    private final Executor builder;

    private final AtomicLong made = new AtomicLong();

    private final AtomicLong released = new AtomicLong();

    /**
     * @param client whether the engines begin handshakes (a client's)
     * @param applicationProtocols the application protocols (ALPN), most preferred first; {@code null} for none
     * @param builder where the contexts of reloaded managers are made: never a worker
     */
    OpenSslEngines(boolean client, String @Nullable [] applicationProtocols, Executor builder) {
        this.client = client;
        this.builder = builder;
        // A server picks the first of its own the client offers; the stage refuses a client that offers only others
        // (OpenSSL would go on without one), so the engine is never asked to choose among none.
        this.applicationProtocols = (applicationProtocols == null) ? null : new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN, ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, applicationProtocols);
    }

    /**
     * @param served the settings whose managers make the engine's context
     * @param host a client's server name (and session cache key), {@code null} on a server
     * @param port a client's port
     * @return a new engine, not yet configured beyond its context
     * @throws SSLException when the managers do not make a context
     */
    SSLEngine engine(Tls served, @Nullable String host, int port) throws SSLException {
        SslContext context = context(served);
        SSLEngine engine = (this.client && host != null) ? context.newEngine(ALLOCATOR, host, port) : context.newEngine(ALLOCATOR);
        this.made.incrementAndGet();
        if (this.client && engine instanceof ReferenceCountedOpenSslEngine openSsl) {
            // Netty lets a BoringSSL client renegotiate once when a server asks; sockstate refuses, as with the JDK's engine.
            try {
                SSL.setRenegotiateMode(openSsl.sslPointer(), SSL.SSL_RENEGOTIATE_NEVER);
            }
            catch (Exception ex) {
                // A library other than BoringSSL has no such mode, and Netty set none on it.
            }
        }
        return engine;
    }

    /**
     * Makes the first contexts of the settings and of each chosen by server name, and an engine of
     * each that it frees: the contexts and the classes an engine needs (one reads a file) are made on
     * the thread that starts the listener or client, not on a worker at its first connection (the
     * start's check refused managers that make none).
     * @param settings the listener's or client's settings
     */
    void warm(Tls settings) {
        List<Tls> all = new ArrayList<>();
        all.add(settings);
        all.addAll(settings.serverNames().values());
        for (Tls served : all) {
            try {
                // (A client's engine for a dotted name, whose check of it as an SNI name initializes the class that reads a file.)
                release(engine(served, this.client ? "warm-up.invalid" : null, -1));
            }
            catch (SSLException | RuntimeException ex) {
                // Counted as "configuration" by each handshake that meets it.
            }
        }
    }

    /** @param engine an engine {@link #engine} made: its native memory freed, once */
    void release(SSLEngine engine) {
        if (engine instanceof ReferenceCounted counted && counted.refCnt() > 0 && counted.release()) {
            this.released.incrementAndGet();
        }
    }

    /** @return engines made and not yet released */
    long live() {
        return this.made.get() - this.released.get();
    }

    private SslContext context(Tls served) throws SSLException {
        Supplier<TlsManagers> supplier = served.managers();
        TlsManagers managers = (supplier != null) ? supplier.get() : null;
        if (managers == null) {
            throw new SSLException("The native TLS engine has no key and trust managers for " + served
                    + ": its settings need a managers supplier (Tls.withProvider) that gives them");
        }
        synchronized (this.contexts) {
            Made last = this.contexts.get(served);
            if (last != null) {
                if (!last.managers.equals(managers) && !managers.equals(this.pending.get(served))) {
                    // Reloaded managers: their context is made off the worker, the connections meanwhile served by the last.
                    this.pending.put(served, managers);
                    try {
                        this.builder.execute(() -> rebuild(served, managers));
                    }
                    catch (RejectedExecutionException ex) {
                        this.pending.remove(served);
                        logger.log(System.Logger.Level.WARNING, "Keeping the native TLS context in use: the task executor"
                                + " refused to make the context of reloaded key and trust managers", ex);
                    }
                }
                return last.context;
            }
        }
        // No context yet: the start made none (its managers failed then, and the start said so), so the first connection
        // after them makes it.
        SslContext context = build(managers);
        synchronized (this.contexts) {
            return this.contexts.computeIfAbsent(served, (key) -> new Made(managers, context)).context;
        }
    }

    /** The task executor's thread: makes the context of reloaded managers, which then serves the next connections. */
    private void rebuild(Tls served, TlsManagers managers) {
        SslContext context;
        try {
            context = build(managers);
        }
        catch (SSLException | RuntimeException ex) {
            // Left pending, so that they are not tried again (newer managers are): the last context goes on serving.
            logger.log(System.Logger.Level.WARNING, "Keeping the native TLS context in use: reloaded key and trust managers"
                    + " make none", ex);
            return;
        }
        synchronized (this.contexts) {
            if (managers.equals(this.pending.get(served))) {
                // The last is dropped, freed once its engines are (Netty's finalizer, as the collector finds it). Managers
                // reloaded again meanwhile leave this one unused: theirs comes next.
                this.pending.remove(served);
                this.contexts.put(served, new Made(managers, context));
            }
        }
    }

    private SslContext build(TlsManagers managers) throws SSLException {
        SslContextBuilder builder;
        if (this.client) {
            builder = SslContextBuilder.forClient().keyManager(managers.keyManagers());
        }
        else {
            if (managers.keyManagers() == null) {
                throw new SSLException("A server's native TLS engine needs key managers (its certificate and key)");
            }
            builder = SslContextBuilder.forServer(managers.keyManagers());
        }
        if (managers.trustManagers() != null) {
            builder.trustManager(managers.trustManagers());
        }
        builder.sslProvider(SslProvider.OPENSSL).applicationProtocolConfig(this.applicationProtocols);
        if (!this.client) {
            // Every AEAD suite the library has (Netty's defaults leave some out, ChaCha20-Poly1305's among them), as the
            // JDK's defaults less their CBC ones; settings that name suites choose among all on the engine.
            builder.ciphers(OpenSsl.availableJavaCipherSuites().stream().filter(AeadSuites::isAead).sorted(OpenSslEngines::preferred)
                    .toList());
        }
        SslContext context = builder.build();
        if (!this.client) {
            // Tickets for TLS 1.2 too (Netty turns them on for TLS 1.3 only), under keys BoringSSL makes and rotates itself.
            ((OpenSslSessionContext) context.sessionContext()).setTicketKeys();
        }
        return context;
    }

    /** @return ECDHE before plain RSA key exchange, then AES-GCM before ChaCha20-Poly1305, 128 bits before 256 */
    private static int preferred(String one, String other) {
        return Integer.compare(rank(one), rank(other));
    }

    private static int rank(String suite) {
        return (suite.contains("_ECDHE_") || !suite.contains("_WITH_") ? 0 : 4) + (suite.contains("CHACHA20") ? 2 : 0)
                + (suite.contains("256") ? 1 : 0);
    }

    /** A native context and the managers it was made of. */
    private record Made(TlsManagers managers, SslContext context) {
    }
}

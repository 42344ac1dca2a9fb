package dev.sockstate.benchmarks.e2e;

import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/** The echo servers compared, each run in a process of its own. */
enum ServerKind {

    /**
     * sockstate through the starter in its default configuration: a port per worker, level-triggered
     * persistent connections (recv, send; no re-arm).
     */
    SOCKSTATE("sockstate", true, () -> new StarterEchoServer(List.of(), false)),

    /**
     * sockstate through the starter on a port the workers share, level-triggered one-shot connections
     * (the reference's multi-threaded model): recv,
     * send, re-arm.
     */
    SOCKSTATE_ONESHOT("sockstate-oneshot", true, () -> new StarterEchoServer(List.of(StarterEchoServer.SHARED_PORT), false)),

    /** sockstate through the starter, the exclusive edge mode on a shared port: persistent edge registrations and the claim word. */
    SOCKSTATE_EXCLUSIVE("sockstate-exclusive", true, () -> new StarterEchoServer(List.of(StarterEchoServer.EXCLUSIVE_EDGE,
            StarterEchoServer.SHARED_PORT), false)),

    /**
     * sockstate through the starter, the exclusive edge mode on a port per worker: each connection
     * pinned to one worker, as each of Netty's and the NIO server's connections is to one event loop.
     */
    SOCKSTATE_AFFINE("sockstate-affine", true, () -> new StarterEchoServer(List.of(StarterEchoServer.EXCLUSIVE_EDGE), false)),

    /**
     * sockstate through the starter in its default layout with {@code accept: per-worker}: a listening
     * socket per worker with SO_REUSEPORT, each connection served by the worker that accepted it.
     */
    SOCKSTATE_PER_WORKER("sockstate-per-worker", true, () -> new StarterEchoServer(List.of(StarterEchoServer.ACCEPT_PER_WORKER), false)),

    /**
     * sockstate through the starter on the portable {@code nio} backend (the JDK's selector), in the
     * default configuration otherwise: what macOS and older Windows run, against {@code jdk-nio}.
     */
    SOCKSTATE_NIO("sockstate-nio", true, () -> new StarterEchoServer(List.of("sockstate.backend=nio"), false)),

    /** Not compared by default: {@code sockstate-oneshot} on the nio backend (one selector the workers share). */
    SOCKSTATE_NIO_ONESHOT("sockstate-nio-oneshot", false, () -> new StarterEchoServer(List.of("sockstate.backend=nio",
            StarterEchoServer.SHARED_PORT), false)),

    /**
     * The default with an admission cap of 100 connections per source, against which {@link AdmissionFlood}
     * opens thousands from one address.
     */
    SOCKSTATE_ADMISSION("sockstate-admission", false, () -> new StarterEchoServer(List.of(
            "sockstate.listeners.echo.admission.max-connections-per-source=" + AdmissionFlood.CAP), false)),

    /**
     * Not compared by default: {@code sockstate} with its workers' {@code yield-before-wait} on, for the
     * open-loop latency run ({@link OpenLoopLatency}) and shared processors.
     */
    SOCKSTATE_YIELD("sockstate-yield", false, () -> new StarterEchoServer(List.of("sockstate.workers.yield-before-wait=true"), false)),

    /** Netty 4.2 on its native epoll transport, the reference. */
    NETTY("netty-epoll", true, NettyEchoServer::new),

    /** A plain JDK NIO selector server. */
    NIO("jdk-nio", true, NioEchoServer::new),

    /**
     * Not compared by default: {@code sockstate-oneshot} with a Prometheus registry, so that every
     * meter of the starter is updated; against {@code sockstate-oneshot}, the cost of metrics.
     */
    SOCKSTATE_ONESHOT_METRICS("sockstate-oneshot-metrics", false, () -> new StarterEchoServer(List.of(StarterEchoServer.SHARED_PORT), true)),

    /**
     * Not compared by default: {@code sockstate-oneshot-metrics} with a percentiles histogram of
     * handler time, so that it goes to a Micrometer {@code Timer}; the cost of a distribution.
     */
    SOCKSTATE_ONESHOT_HISTOGRAM("sockstate-oneshot-histogram", false, () -> new StarterEchoServer(
            List.of(StarterEchoServer.SHARED_PORT, "management.metrics.distribution.percentiles-histogram.sockstate.handler=true"), true)),

    /** The TLS comparison's: {@code sockstate-oneshot} with its listener on an SSL bundle ({@link TlsKeys}). */
    SOCKSTATE_TLS("sockstate-tls", false, () -> new StarterEchoServer(TlsKeys.sockstateProperties("jdk"), false)),

    /** The TLS comparison's: {@code sockstate-tls} on OpenSSL's engine ({@code ssl.provider: openssl}, netty-tcnative's BoringSSL). */
    SOCKSTATE_TLS_OPENSSL("sockstate-tls-openssl", false, () -> new StarterEchoServer(TlsKeys.sockstateProperties("openssl"), false)),

    /** The TLS comparison's: {@code netty-epoll} with Netty's {@code SslHandler} on the JDK's provider first in each pipeline. */
    NETTY_TLS("netty-epoll-tls", false, () -> new NettyEchoServer(io.netty.handler.ssl.SslProvider.JDK)),

    /** The TLS comparison's: {@code netty-epoll-tls} on Netty's OpenSSL provider (netty-tcnative's BoringSSL), as its users run it for speed. */
    NETTY_TLS_OPENSSL("netty-epoll-tls-openssl", false, () -> new NettyEchoServer(io.netty.handler.ssl.SslProvider.OPENSSL)),

    /**
     * Not compared by default: the C anchor ({@link CAnchor}) with a listening socket and an epoll
     * instance per thread, bound with SO_REUSEPORT, every registration level persistent.
     */
    C_REUSEPORT("c-reuseport", "reuseport"),

    /** Not compared by default: the C anchor on one listening socket and one epoll instance, level one-shot registrations. */
    C_ONESHOT("c-oneshot", "oneshot"),

    /**
     * Not compared by default: {@code c-reuseport}'s loop in Java, libc bound by JNA's direct mapping
     * ({@link JnaEchoAnchor}): what the binding and the JVM cost without an engine.
     */
    JNA_REUSEPORT("jna-reuseport", false, JnaEchoAnchor::new);

    final String label;

    /** Whether the comparison runs it unless told which servers to run. */
    final boolean compared;

    /** The C anchor's mode, or {@code null} for a server that runs in a JVM. */
    final String anchorMode;

    private final Supplier<EchoServer> factory;

    ServerKind(String label, boolean compared, Supplier<EchoServer> factory) {
        this.label = label;
        this.compared = compared;
        this.factory = factory;
        this.anchorMode = null;
    }

    ServerKind(String label, String anchorMode) {
        this.label = label;
        this.compared = false;
        this.factory = null;
        this.anchorMode = anchorMode;
    }

    EchoServer create() {
        if (this.factory == null) {
            throw new IllegalStateException(this.label + " is a native process, started by ServerProcess, not a JVM's server");
        }
        return this.factory.get();
    }

    static ServerKind parse(String text) {
        for (ServerKind kind : values()) {
            if (kind.label.equals(text) || kind.name().equals(text.toUpperCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("Unknown server '" + text + "'; use sockstate, sockstate-oneshot, sockstate-exclusive,"
                + " sockstate-affine, sockstate-per-worker, sockstate-nio, sockstate-nio-oneshot, sockstate-yield, netty-epoll, jdk-nio, sockstate-oneshot-metrics, sockstate-oneshot-histogram, sockstate-tls,"
                + " netty-epoll-tls, c-reuseport, c-oneshot or jna-reuseport");
    }
}

package dev.sockstate.benchmarks.e2e;

import java.util.Locale;
import java.util.function.Supplier;

/** The echo servers compared, each run in a process of its own. */
enum ServerKind {

    /** sockstate, level-triggered one-shot connections (the default): recv, send, re-arm. */
    SOCKSTATE_ONESHOT("sockstate-oneshot", true, () -> new SockstateEchoServer(false, false)),

    /** sockstate, the exclusive edge mode: persistent edge registrations and the claim word. */
    SOCKSTATE_EXCLUSIVE("sockstate-exclusive", true, () -> new SockstateEchoServer(true, false)),

    /** Netty 4.2 on its native epoll transport, the reference. */
    NETTY("netty-epoll", true, NettyEchoServer::new),

    /** A plain JDK NIO selector server. */
    NIO("jdk-nio", true, NioEchoServer::new),

    /**
     * Not compared by default: sockstate in exclusive edge mode with one single-worker group per
     * worker, each with its own listener on the same port through SO_REUSEPORT (a port per worker,
     * as Netty and the NIO server have), to measure what sharing one port costs.
     */
    SOCKSTATE_EXCLUSIVE_SHARDED("sockstate-exclusive-sharded", false, () -> new SockstateEchoServer(true, true));

    final String label;

    /** Whether the comparison runs it unless told which servers to run. */
    final boolean compared;

    private final Supplier<EchoServer> factory;

    ServerKind(String label, boolean compared, Supplier<EchoServer> factory) {
        this.label = label;
        this.compared = compared;
        this.factory = factory;
    }

    EchoServer create() {
        return this.factory.get();
    }

    static ServerKind parse(String text) {
        for (ServerKind kind : values()) {
            if (kind.label.equals(text) || kind.name().equals(text.toUpperCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("Unknown server '" + text + "'; use sockstate-oneshot, sockstate-exclusive,"
                + " netty-epoll, jdk-nio or sockstate-exclusive-sharded");
    }
}

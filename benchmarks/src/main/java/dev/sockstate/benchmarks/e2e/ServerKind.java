package dev.sockstate.benchmarks.e2e;

import java.util.Locale;
import java.util.function.Supplier;

/** The echo servers compared, each run in a process of its own. */
enum ServerKind {

    /** sockstate, level-triggered one-shot connections (the default): recv, send, re-arm. */
    SOCKSTATE_ONESHOT("sockstate-oneshot", () -> new SockstateEchoServer(false)),

    /** sockstate, the exclusive edge mode: persistent edge registrations and the claim word. */
    SOCKSTATE_EXCLUSIVE("sockstate-exclusive", () -> new SockstateEchoServer(true)),

    /** Netty 4.2 on its native epoll transport, the reference. */
    NETTY("netty-epoll", NettyEchoServer::new),

    /** A plain JDK NIO selector server. */
    NIO("jdk-nio", NioEchoServer::new);

    final String label;

    private final Supplier<EchoServer> factory;

    ServerKind(String label, Supplier<EchoServer> factory) {
        this.label = label;
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
                + " netty-epoll or jdk-nio");
    }
}

package dev.sockstate.server;

import dev.sockstate.port.Events;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.server.tls.Tls;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The rules of {@link ListenerSettings} that tie several settings together: what only TCP connections
 * have, the trigger with the exclusive edge mode and a handler executor, the events, the handler of
 * each protocol. Each refusal is an {@link InvalidSettingException} naming the listener and the setting.
 */
final class ListenerChecks {

    private ListenerChecks() {
    }

    /** Refuses, for a UDP listener, the first setting only TCP connections have. */
    static void refuseOnUdp(String name, List<Supplier<? extends Stage>> stages, @Nullable Framing framing, @Nullable Tls tls,
            AcceptMode accept, @Nullable ProxyProtocol proxyProtocol, Shaping shaping) {
        if (!stages.isEmpty()) {
            throw InvalidSettingException.mustBe(name, Setting.STAGES, stages.size() + " stages",
                    "none for a UDP listener (stages serve TCP connections)");
        }
        if (framing != null) {
            throw InvalidSettingException.mustBe(name, Setting.FRAMING, framing, "none for a UDP listener (a datagram is a frame already)");
        }
        if (tls != null) {
            throw InvalidSettingException.mustBe(name, Setting.TLS, tls, "none for a UDP listener (TLS secures TCP connections;"
                    + " datagrams would need DTLS)");
        }
        if (accept != AcceptMode.SHARED) {
            throw InvalidSettingException.mustBe(name, Setting.ACCEPT, accept, "SHARED for a UDP listener (it accepts no connections)");
        }
        if (proxyProtocol != null) {
            throw InvalidSettingException.mustBe(name, Setting.PROXY_PROTOCOL, proxyProtocol.version(),
                    "none for a UDP listener (the PROXY protocol header begins a TCP connection)");
        }
        if (shaping.isShaping()) {
            throw InvalidSettingException.mustBe(name, Setting.SHAPING, shaping, "none for a UDP listener (it shapes TCP connections)");
        }
    }

    /**
     * Refuses coalescing where a listener receives no datagrams on an IP port, and coalesced datagrams handed whole to a
     * handler executor, which calls the handler after the worker's turn.
     */
    static void coalescing(String name, Protocol protocol, boolean unix, boolean handlerExecutor, Coalescing coalescing) {
        if (coalescing == Coalescing.OFF) {
            return;
        }
        if (protocol != Protocol.UDP || unix) {
            throw InvalidSettingException.mustBe(name, Setting.COALESCING, coalescing, "OFF for " + ((protocol != Protocol.UDP)
                    ? "a TCP listener (it coalesces datagrams, which TCP has not)" : "a Unix domain socket (the system coalesces UDP only)"));
        }
        if (coalescing == Coalescing.WHOLE && handlerExecutor) {
            throw InvalidSettingException.mustBe(name, Setting.COALESCING, coalescing, "OFF or SEGMENTS with a handler executor (a"
                    + " coalesced datagram's segment size is known in the worker's call only)");
        }
    }

    /**
     * Refuses a socket per worker where a listener receives no datagrams on an IP port (TCP, a Unix
     * domain socket), and beside multicast, which the system hands to every socket bound to the port.
     */
    static void receive(String name, Protocol protocol, boolean unix, Multicast multicast, ReceiveMode receive) {
        if (receive != ReceiveMode.PER_WORKER) {
            return;
        }
        if (protocol != Protocol.UDP) {
            throw InvalidSettingException.mustBe(name, Setting.RECEIVE, receive, "SHARED for a TCP listener (it receives on the"
                    + " connections it accepts; accept PER_WORKER gives each worker a listening socket)");
        }
        if (unix) {
            throw InvalidSettingException.mustBe(name, Setting.RECEIVE, receive, "SHARED for a Unix domain socket (one path is one"
                    + " socket)");
        }
        if (multicast.isSet()) {
            throw InvalidSettingException.mustBe(name, Setting.RECEIVE, receive, "SHARED for a listener that joins multicast groups"
                    + " (the system hands each group datagram to every socket bound to the port, so each worker would receive it)");
        }
    }

    /**
     * Refuses the socket options a listener's sockets do not have: a UDP socket takes the buffers and
     * the traffic class, a Unix domain socket the buffers only; TCP Fast Open is a TCP port's.
     */
    static void socketOptions(String name, Protocol protocol, boolean unix, SocketOptions options, int fastOpenQueue) {
        String kind = unix ? "a Unix domain socket" : "a UDP listener";
        if (protocol != Protocol.TCP || unix) {
            require(options.keepAlive() == null, name, Setting.KEEP_ALIVE, options.keepAlive(), "none for " + kind
                    + " (TCP keep-alive probes TCP connections)");
            require(options.userTimeout() == null, name, Setting.USER_TIMEOUT, options.userTimeout(), "none for " + kind
                    + " (TCP_USER_TIMEOUT bounds TCP retransmissions)");
            require(options.linger() == null, name, Setting.LINGER, options.linger(), "none for " + kind
                    + " (SO_LINGER waits for a TCP connection's unsent data)");
            require(options.notSentLowWatermark() == 0, name, Setting.NOT_SENT_LOW_WATERMARK, options.notSentLowWatermark(),
                    "0 for " + kind + " (TCP_NOTSENT_LOWAT counts a TCP connection's unsent bytes)");
            require(fastOpenQueue == 0, name, Setting.FAST_OPEN_QUEUE, fastOpenQueue, "0 for " + kind + " (TCP Fast Open is a TCP port's)");
        }
        require(!unix || options.trafficClass() < 0, name, Setting.TRAFFIC_CLASS, options.trafficClass(),
                "unset for a Unix domain socket (its bytes travel in no IP packet)");
    }

    /**
     * Refuses admission rules where they cannot hold: none on a UDP listener (it accepts no connections),
     * and none by address on a Unix domain socket, whose peers have no address, unless a PROXY protocol
     * header names them.
     */
    static void admission(String name, Protocol protocol, boolean unix, boolean proxyProtocol, Admission admission) {
        require(protocol == Protocol.TCP || admission.isEmpty(), name, Setting.ADMISSION, admission,
                "none for a UDP listener (it accepts no connections)");
        require(!unix || proxyProtocol || !admission.checksSources(), name, Setting.ADMISSION, admission,
                "no rule by source on a Unix domain socket without the PROXY protocol (its peers have no address; the"
                        + " listener's own rate applies)");
    }

    /** @return the trigger set, {@link Trigger#EDGE_PERSISTENT} in the exclusive edge mode, {@code null} for the group's default */
    static @Nullable Trigger trigger(String name, Protocol protocol, @Nullable Trigger trigger, boolean exclusiveEdge,
            @Nullable Executor handlerExecutor) {
        Trigger chosen = trigger;
        if (exclusiveEdge) {
            require(protocol == Protocol.TCP, name, Setting.EXCLUSIVE_EDGE, true, "false for a UDP listener (it is a TCP mode)");
            require(chosen == null || chosen == Trigger.EDGE_PERSISTENT, name, Setting.TRIGGER, chosen,
                    "unset or EDGE_PERSISTENT with exclusiveEdge, which registers connections edge-triggered persistent");
            chosen = Trigger.EDGE_PERSISTENT;
        }
        require(handlerExecutor == null || protocol != Protocol.TCP || chosen != Trigger.LEVEL_PERSISTENT,
                name, Setting.TRIGGER, chosen, "another trigger with a handler executor: a level-triggered persistent registration"
                        + " stays armed while the executor runs the handler, and unread bytes would notify the worker again and"
                        + " again; LEVEL_ONESHOT (the default with an executor), EDGE_ONESHOT, EDGE_PERSISTENT or the exclusive edge mode work with"
                        + " an executor");
        return chosen;
    }

    /** @return the events set, or the protocol's default: IN with HANGUP for TCP, IN for UDP */
    static int events(String name, Protocol protocol, int events) {
        int filter = (events >= 0) ? events : (protocol == Protocol.TCP) ? Events.IN | Events.HANGUP : Events.IN;
        require((filter & ~Events.FILTER_ALL) == 0 && (filter & Events.IN) != 0, name, Setting.EVENTS, Events.toString(filter),
                "IN, optionally with HANGUP");
        // Windows documents no notification for a peer's close without HANGUP in the filter.
        require(protocol != Protocol.TCP || (filter & Events.HANGUP) != 0, name, Setting.EVENTS, Events.toString(filter),
                "IN|HANGUP for a TCP listener: without HANGUP, Windows may never report that a peer closed its side");
        return filter;
    }

    /** Refuses a listener without the handler of its protocol, or with the other one. */
    static void handlers(String name, Protocol protocol, @Nullable ConnectionHandler connectionHandler,
            @Nullable DatagramHandler datagramHandler) {
        if (protocol == Protocol.TCP) {
            require(connectionHandler != null, name, Setting.HANDLER, "none", "a ConnectionHandler for a TCP listener");
            require(datagramHandler == null, name, Setting.HANDLER, "a DatagramHandler", "a ConnectionHandler for a TCP listener");
        }
        else {
            require(datagramHandler != null, name, Setting.HANDLER, "none", "a DatagramHandler for a UDP listener");
            require(connectionHandler == null, name, Setting.HANDLER, "a ConnectionHandler", "a DatagramHandler for a UDP listener");
        }
    }

    /** Refuses a client's TLS, which begins handshakes a listener's peers begin. */
    static void serverTls(String name, @Nullable Tls tls) {
        require(tls == null || !tls.isClient(), name, Setting.TLS, tls, "a server's TLS (Tls.server): a client's is for ClientSettings");
    }

    /**
     * Refuses handlers chosen by application protocol beside TLS started on request: the connection opens
     * in plaintext, before any protocol is negotiated, and its handler could not change after the open.
     */
    static void routesByApplicationProtocol(String name, @Nullable Tls tls, @Nullable ConnectionHandler connectionHandler) {
        require(!(connectionHandler instanceof ApplicationProtocolRoutes) || tls == null || !tls.startsTlsOnRequest(), name, Setting.HANDLER,
                "handlers chosen by application protocol", "one handler where TLS starts on request (Tls.withStartTls): its"
                        + " connections open in plaintext, before an application protocol is negotiated");
    }

    private static void require(boolean valid, String name, Setting setting, @Nullable Object value, String expected) {
        if (!valid) {
            throw InvalidSettingException.mustBe(name, setting, value, expected);
        }
    }
}

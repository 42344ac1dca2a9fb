package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.Connection;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.InetAddress;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the PROXY protocol stages of one listener's connections share: the settings, the observer, and
 * the listener's admission of the clients the headers name.
 */
public final class ProxySupport {

    final ProxyProtocol settings;

    final ListenerObserver observer;


    /** Where a refused header's message goes: the listener's log, at most once a second. */
    final Consumer<String> refusals;

    /** Admits the client a header names, {@code null} where the listener has no rule by source. */
    final @Nullable BiPredicate<Connection, InetAddress> admission;

    /**
     * @param settings the listener's PROXY protocol settings
     * @param observer its observer
     * @param refusals where a refused header's message goes, naming the connection
     * @param admission admits the client a trusted sender's header names (and counts and logs a refusal),
     * {@code null} where the listener has no rule by source
     */
    public ProxySupport(ProxyProtocol settings, ListenerObserver observer, Consumer<String> refusals,
            @Nullable BiPredicate<Connection, InetAddress> admission) {
        this.settings = settings;
        this.observer = observer;
        this.refusals = refusals;
        this.admission = admission;
    }
}

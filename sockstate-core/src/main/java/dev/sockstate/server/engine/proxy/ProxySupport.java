package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.util.function.Consumer;

/**
 * What the PROXY protocol stages of one listener's connections share: the settings and the observer.
 */
public final class ProxySupport {

    final ProxyProtocol settings;

    final ListenerObserver observer;


    /** Where a refused header's message goes: the listener's log, at most once a second. */
    final Consumer<String> refusals;

    /**
     * @param settings the listener's PROXY protocol settings
     * @param observer its observer
     * @param refusals where a refused header's message goes, naming the connection
     */
    public ProxySupport(ProxyProtocol settings, ListenerObserver observer, Consumer<String> refusals) {
        this.settings = settings;
        this.observer = observer;
        this.refusals = refusals;
    }
}

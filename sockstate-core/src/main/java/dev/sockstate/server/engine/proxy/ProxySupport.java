package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.proxy.ProxyProtocol;

/**
 * What the PROXY protocol stages of one listener's connections share: the settings and the observer.
 */
public final class ProxySupport {

    final ProxyProtocol settings;

    final ListenerObserver observer;


    public ProxySupport(ProxyProtocol settings, ListenerObserver observer) {
        this.settings = settings;
        this.observer = observer;
    }
}

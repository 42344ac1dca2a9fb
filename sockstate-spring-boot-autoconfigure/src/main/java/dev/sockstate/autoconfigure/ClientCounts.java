package dev.sockstate.autoconfigure;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.observer.WorkerObserver;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live counts of the auto-configured server's clients, as the server hands them to its observer
 * (which it passes everything on to): the requests each has sent and not had answered yet, for the
 * {@code sockstate} endpoint.
 */
public final class ClientCounts {

    private final Map<String, ServerObserver.ActiveCounts> counts = new ConcurrentHashMap<>();

    ClientCounts() {
    }

    /**
     * @param client a client's name
     * @return its requests sent and not yet answered; 0 while it does not run
     */
    public int pendingRequests(String client) {
        ServerObserver.ActiveCounts active = this.counts.get(client);
        return (active != null) ? active.pendingRequests() : 0;
    }

    /**
     * @param observer the server's observer
     * @return an observer that keeps each client's counts and passes everything on to it
     */
    ServerObserver observing(ServerObserver observer) {
        return new ServerObserver() {

            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return observer.listener(listener, protocol, active);
            }

            @Override
            public ListenerObserver client(String client, ActiveCounts active) {
                ClientCounts.this.counts.put(client, active);
                return observer.client(client, active);
            }

            @Override
            public WorkerObserver worker(String group, int worker) {
                return observer.worker(group, worker);
            }

            @Override
            public void listenerRemoved(String listener) {
                observer.listenerRemoved(listener);
            }

            @Override
            public void clientRemoved(String client) {
                ClientCounts.this.counts.remove(client);
                observer.clientRemoved(client);
            }
        };
    }
}

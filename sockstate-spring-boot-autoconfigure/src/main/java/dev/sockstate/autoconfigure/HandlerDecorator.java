package dev.sockstate.autoconfigure;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;

/**
 * Wraps each listener's handler once it is found, before the server starts: to run every call in an
 * observation, a logging context or a security context. Beans of this type are applied in their
 * order, the first outermost. Each method leaves the handler as it is unless overridden, so a
 * decorator overrides only the protocols it cares about.
 */
public interface HandlerDecorator {

    /**
     * @param listener the TCP listener's name
     * @param handler its handler (or the previous decorator's wrapper)
     * @return the handler the listener calls instead, never {@code null}
     */
    default ConnectionHandler decorate(String listener, ConnectionHandler handler) {
        return handler;
    }

    /**
     * @param listener the UDP listener's name
     * @param handler its handler (or the previous decorator's wrapper)
     * @return the handler the listener calls instead, never {@code null}
     */
    default DatagramHandler decorate(String listener, DatagramHandler handler) {
        return handler;
    }
}

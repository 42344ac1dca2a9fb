package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeSockets;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * A backend whose socket calls a test watches as they return: for tests that must act exactly when
 * the server has made a given call (read a FIN, had a send refused).
 */
final class SocketCallWatch {

    /** Told of each call of the server's sockets once it returned or threw. */
    @FunctionalInterface
    interface Watcher {

        /**
         * @param method the call's name ({@code recv}, {@code send}, ...)
         * @param result what it returned, {@code null} when it threw
         * @param thrown what it threw, {@code null} when it returned
         */
        void returned(String method, Object result, Throwable thrown);

        /**
         * @param method the call's name
         * @param arguments its arguments (the socket's handle first, for most)
         * @param result what it returned, {@code null} when it threw
         * @param thrown what it threw, {@code null} when it returned
         */
        default void returned(String method, Object[] arguments, Object result, Throwable thrown) {
            returned(method, result, thrown);
        }
    }

    private SocketCallWatch() {
    }

    /**
     * @param real the backend that does the work
     * @param watcher told of each call of its sockets
     * @return the backend to start the server on
     */
    static Backend watched(Backend real, Watcher watcher) {
        NativeSockets sockets = real.sockets();
        NativeSockets watched = (NativeSockets) Proxy.newProxyInstance(NativeSockets.class.getClassLoader(),
                new Class<?>[] {NativeSockets.class}, (proxy, method, arguments) -> {
                    Object result;
                    try {
                        result = method.invoke(sockets, arguments);
                    }
                    catch (InvocationTargetException ex) {
                        watcher.returned(method.getName(), arguments, null, ex.getCause());
                        throw ex.getCause();
                    }
                    watcher.returned(method.getName(), arguments, result, null);
                    return result;
                });
        return new ForwardingBackend(real) {

            @Override
            public NativeSockets sockets() {
                return watched;
            }
        };
    }
}

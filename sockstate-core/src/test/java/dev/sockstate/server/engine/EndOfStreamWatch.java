package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeSockets;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;

/**
 * The running system's backend, whose sockets tell when a read found the end of a peer's stream:
 * for tests that must act exactly when the server has read a FIN.
 */
final class EndOfStreamWatch {

    /** Counted down when a server's read first returns the end of a stream. */
    final CountDownLatch ended = new CountDownLatch(1);

    /** @return the backend to start the server on */
    Backend backend() {
        Backend real = ServerFixture.backend();
        NativeSockets sockets = real.sockets();
        NativeSockets watched = (NativeSockets) Proxy.newProxyInstance(NativeSockets.class.getClassLoader(),
                new Class<?>[] {NativeSockets.class}, (proxy, method, arguments) -> {
                    Object result;
                    try {
                        result = method.invoke(sockets, arguments);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                    if (method.getName().equals("recv") && Integer.valueOf(0).equals(result)) {
                        this.ended.countDown();
                    }
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

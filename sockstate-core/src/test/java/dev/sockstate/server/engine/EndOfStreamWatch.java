package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
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
        return SocketCallWatch.watched(ServerFixture.backend(), (method, result, thrown) -> {
            if (method.equals("recv") && Integer.valueOf(0).equals(result)) {
                this.ended.countDown();
            }
        });
    }
}

package dev.sockstate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The notification port of the reference documentation's notification model page, driven by hand on a UDP socket. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PortExampleTest {

    /** What the port notified: each key with its events. */
    private final List<long[]> notified = new ArrayList<>();

    @Test
    void aRegistrationIsNotifiedThenItsRemovalEndsIt() throws Exception {
        // tag::port[]
        Backend backend = Backends.select("auto");
        NativeSockets sockets = backend.sockets();
        long socket = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        sockets.bind(socket, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try (NotificationPort port = backend.openPort()) {
            RegistrationBatch changes = new RegistrationBatch(64);
            NotificationBatch notifications = new NotificationBatch(64);
            long key = 1;                                                  // the caller's own, never negative
            changes.enable(socket, key, Events.IN, Trigger.LEVEL_ONESHOT);
            sendDatagramTo(sockets.localAddress(socket));                  // something to read
            int count = port.process(changes, notifications, 1000);       // apply, then dequeue
            for (int i = 0; i < count; i++) {
                handle(notifications.key(i), notifications.events(i));     // Events.IN, HANGUP, ERR, REMOVE...
            }
            changes.clear();
            changes.remove(socket, key);                                   // REMOVE follows, exactly once
            boolean removed = false;
            while (!removed) {
                int dequeued = port.process(changes, notifications, 1000);
                changes.clear();
                for (int i = 0; i < dequeued; i++) {
                    removed |= notifications.key(i) == key && (notifications.events(i) & Events.REMOVE) != 0;
                }
            }
        }
        sockets.close(socket);                                             // per-socket state goes only now
        // end::port[]
        assertThat(this.notified).singleElement().satisfies((entry) -> {
            assertThat(entry[0]).isEqualTo(1L);
            assertThat(entry[1] & Events.IN).isNotZero();
        });
    }

    private void handle(long key, int events) {
        this.notified.add(new long[] { key, events });
    }

    private static void sendDatagramTo(SocketAddress target) throws IOException {
        try (DatagramSocket sender = new DatagramSocket()) {
            sender.send(new DatagramPacket(new byte[] { 42 }, 1, target));
        }
    }
}

package dev.sockstate.server.engine;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An echo server in a process of its own, for tests that must change process limits: prints
 * {@code PORT <n>} once listening, and stops when its standard input closes, printing
 * {@code BACKOFFS <n>}, the times its observer heard accepting pause.
 */
public final class EchoServerMain {

    private EchoServerMain() {
    }

    public static void main(String[] args) throws Exception {
        AtomicLong backoffs = new AtomicLong();
        ServerObserver counting = new ServerObserver() {
            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return new ListenerObserver() {
                    @Override
                    public void acceptBackedOff() {
                        backoffs.incrementAndGet();
                    }
                };
            }
        };
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                List.of(ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).handler(new EchoHandler()).build()),
                counting);
        server.start();
        System.out.println("PORT " + server.listener("echo").portNumber());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the parent to close our input
        }
        server.stop(Duration.ofSeconds(5));
        System.out.println("BACKOFFS " + backoffs.get());
        System.out.flush();
    }
}

package dev.sockstate.docs;

// tag::plain-server[]
import dev.sockstate.port.Backends;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

public class PlainServer {

    public static void main(String[] args) throws Exception {
        SocketServer server = start(InetAddress.getLoopbackAddress(), 7007, 7009);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(Duration.ofSeconds(5))));
        Thread.currentThread().join();
    }

    public static SocketServer start(InetAddress address, int echoPort, int upperPort) {
        ConnectionHandler echo = (connection, data) -> connection.write(data);
        DatagramHandler upper = (endpoint, data, sender) -> {
            String text = StandardCharsets.UTF_8.decode(data).toString().toUpperCase();
            endpoint.send(StandardCharsets.UTF_8.encode(text), sender);
        };
        SocketServer server = new SocketServer(Backends.select("auto"),
                List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ListenerSettings.tcp("echo").address(address).portNumber(echoPort).handler(echo).build(),
                        ListenerSettings.udp("upper").address(address).portNumber(upperPort).handler(upper).build()),
                ServerObserver.NONE);
        server.start();
        return server;
    }
}
// end::plain-server[]

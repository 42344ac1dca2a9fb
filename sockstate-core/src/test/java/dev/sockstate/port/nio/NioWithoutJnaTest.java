package dev.sockstate.port.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backends;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The nio backend, selected by name and serving a connection through its port, in a class loader
 * of its own that can load JNA and every backend: that it loads no JNA class shows it runs where
 * JNA's native library cannot load (JNA loads it when its {@code Native} class initialises).
 */
class NioWithoutJnaTest {

    @Test
    void servesAConnectionWithoutLoadingJna() throws Exception {
        try (RecordingLoader loader = new RecordingLoader()) {
            @SuppressWarnings("unchecked")
            Callable<String> program = (Callable<String>) loader.loadClass(EchoOnce.class.getName()).getDeclaredConstructor()
                    .newInstance();
            assertThat(program.call()).isEqualTo("hello");
            assertThat(loader.loaded).as("the backend's classes, loaded by this loader")
                    .contains("dev.sockstate.port.nio.NioPort", "dev.sockstate.port.nio.NioSockets");
            assertThat(loader.loaded).noneMatch((name) -> name.startsWith("com.sun.jna."));
        }
    }

    /** Selects nio by name, accepts a connection, waits for its data on the port and reads it. */
    public static final class EchoOnce implements Callable<String> {

        @Override
        public String call() throws Exception {
            NativeSockets sockets = Backends.select("nio").sockets();
            long listener = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
            try (NotificationPort port = Backends.select("nio").openPort()) {
                sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                sockets.listen(listener, 4);
                try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), sockets.localAddress(listener).getPort())) {
                    long connection;
                    while ((connection = sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                        Thread.onSpinWait();
                    }
                    try {
                        RegistrationBatch changes = new RegistrationBatch(1);
                        changes.enable(connection, 7, Events.IN, Trigger.LEVEL_ONESHOT);
                        peer.getOutputStream().write("hello".getBytes(StandardCharsets.UTF_8));
                        NotificationBatch batch = new NotificationBatch(1);
                        if (port.process(changes, batch, 5_000) != 1 || batch.key(0) != 7) {
                            return "no notification";
                        }
                        NativeBuffer buffer = sockets.allocate(16);
                        int read = sockets.recv(connection, buffer);
                        buffer.buffer().flip();
                        return (read > 0) ? StandardCharsets.UTF_8.decode(buffer.buffer()).toString() : "nothing read";
                    }
                    finally {
                        sockets.close(connection);
                    }
                }
            }
            finally {
                sockets.close(listener);
            }
        }
    }

    /** Loads sockstate's classes, the tests' and JNA itself, not from the test's class loader, and notes each. */
    private static final class RecordingLoader extends URLClassLoader {

        final Set<String> loaded = ConcurrentHashMap.newKeySet();

        RecordingLoader() throws ClassNotFoundException {
            super("nio-without-jna", new URL[] { location(NioBackend.class), location(NioWithoutJnaTest.class),
                    location(Class.forName("com.sun.jna.Native", false, NioWithoutJnaTest.class.getClassLoader())) },
                    ClassLoader.getPlatformClassLoader());
        }

        private static URL location(Class<?> type) {
            return type.getProtectionDomain().getCodeSource().getLocation();
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            Class<?> found = super.findClass(name);
            this.loaded.add(name);
            return found;
        }
    }
}

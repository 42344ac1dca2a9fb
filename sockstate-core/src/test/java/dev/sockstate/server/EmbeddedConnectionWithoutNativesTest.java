package dev.sockstate.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.framing.Framing;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@link EmbeddedConnection} from a user's package, through the public API only, in a class loader
 * of its own that can load JNA and both backends: what it loaded shows that serving a connection
 * without a socket touches neither.
 */
class EmbeddedConnectionWithoutNativesTest {

    @Test
    void anEmbeddedConnectionServesWithoutLoadingJnaOrABackend() throws Exception {
        try (RecordingLoader loader = new RecordingLoader()) {
            assertThat(run(loader, EchoLines.class)).isEqualTo("one\ntwo\n");
            assertThat(loader.loaded).as("the connection's own classes, loaded by this loader")
                    .contains("dev.sockstate.server.engine.TcpConnection", "dev.sockstate.server.engine.Framer",
                            "dev.sockstate.server.engine.WritePath");
            assertThat(loader.loaded).noneMatch((name) -> name.startsWith("com.sun.jna."))
                    .noneMatch((name) -> name.startsWith("dev.sockstate.port.epoll."))
                    .noneMatch((name) -> name.startsWith("dev.sockstate.port.winsock."));
        }
    }

    @Test
    @EnabledOnOs({ OS.LINUX, OS.WINDOWS })
    void theLoaderSeesJnaAndTheBackendsWhenAProgramProbesThem() throws Exception {
        try (RecordingLoader loader = new RecordingLoader()) {
            assertThat(run(loader, ProbeBackends.class)).isNotEmpty();
            assertThat(loader.loaded).anyMatch((name) -> name.startsWith("com.sun.jna."))
                    .anyMatch((name) -> name.startsWith("dev.sockstate.port.epoll."));
        }
    }

    private static String run(ClassLoader loader, Class<? extends Callable<String>> program) throws Exception {
        @SuppressWarnings("unchecked")
        Callable<String> isolated = (Callable<String>) loader.loadClass(program.getName()).getDeclaredConstructor().newInstance();
        return isolated.call();
    }

    /** A line echo served by an embedded connection: what a user's handler test does. */
    public static final class EchoLines implements Callable<String> {

        @Override
        public String call() {
            ConnectionHandler echo = (connection, data) -> connection.write(data);
            try (EmbeddedConnection embedded = EmbeddedConnection.open(ListenerSettings.tcp("echo").framing(Framing.line())
                    .handler(echo).build())) {
                embedded.writeInbound(ByteBuffer.wrap("one\ntwo\n".getBytes(embedded.settings().connection().charset())));
                return embedded.readAllOutboundText();
            }
        }
    }

    /** Probes every backend, as a server's start does. */
    public static final class ProbeBackends implements Callable<String> {

        @Override
        public String call() {
            List<Backend> all = Backends.all();
            all.forEach(Backend::availability);
            return all.toString();
        }
    }

    /**
     * Loads sockstate's classes, the tests' and JNA itself, not from the test's class loader, and
     * notes each class it loads.
     */
    private static final class RecordingLoader extends URLClassLoader {

        final Set<String> loaded = ConcurrentHashMap.newKeySet();

        RecordingLoader() throws ClassNotFoundException {
            super("without-natives", new URL[] { location(EmbeddedConnection.class), location(EchoLines.class), location(jna()) },
                    ClassLoader.getPlatformClassLoader());
        }

        /** @return JNA's main class as the test's class loader has it, not initialised */
        private static Class<?> jna() throws ClassNotFoundException {
            return Class.forName("com.sun.jna.Native", false, EmbeddedConnectionWithoutNativesTest.class.getClassLoader());
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

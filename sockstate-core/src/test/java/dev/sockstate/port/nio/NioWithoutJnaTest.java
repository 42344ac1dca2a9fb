package dev.sockstate.port.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.RecordingClassLoader;
import org.junit.jupiter.api.Test;

/**
 * The nio backend, selected by name and serving a connection through its port, in a class loader
 * of its own that can load JNA and every backend: that it loads no JNA class shows it runs where
 * JNA's native library cannot load (JNA loads it when its {@code Native} class initialises).
 */
class NioWithoutJnaTest {

    @Test
    void servesAConnectionWithoutLoadingJna() throws Exception {
        try (RecordingClassLoader loader = new RecordingClassLoader()) {
            assertThat(loader.serveOnce("nio")).isEqualTo("hello");
            assertThat(loader.loaded()).as("the backend's classes, loaded by this loader")
                    .contains("dev.sockstate.port.nio.NioPort", "dev.sockstate.port.nio.NioSockets");
            assertThat(loader.loaded()).noneMatch((name) -> name.startsWith("com.sun.jna."));
        }
    }
}

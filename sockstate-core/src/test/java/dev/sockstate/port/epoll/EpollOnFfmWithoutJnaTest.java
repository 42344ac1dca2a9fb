package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.RecordingClassLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * On Java 22 and later, the epoll backend on its FFM binding, selected by name and serving a
 * connection through its port, in a class loader of its own that can load JNA: that it loads no JNA
 * class shows epoll runs where JNA's native library cannot load (a {@code noexec} temporary directory).
 */
@EnabledOnOs(OS.LINUX)
@EnabledForJreRange(minVersion = 22)
class EpollOnFfmWithoutJnaTest {

    @Test
    void servesAConnectionWithoutLoadingJna() throws Exception {
        try (RecordingClassLoader loader = new RecordingClassLoader()) {
            assertThat(loader.serveOnce("epoll")).isEqualTo("hello");
            assertThat(loader.loaded()).as("the backend's classes, loaded by this loader")
                    .contains("dev.sockstate.port.epoll.EpollPort", BindingChoice.FFM_CLASS);
            assertThat(loader.loaded()).noneMatch((name) -> name.startsWith("com.sun.jna."));
        }
    }
}

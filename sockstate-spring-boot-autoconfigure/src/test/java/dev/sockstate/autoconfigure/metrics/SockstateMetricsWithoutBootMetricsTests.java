package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An application with Micrometer and a registry of its own but without Spring Boot's metrics module
 * ({@code spring-boot-micrometer-metrics}, where {@code management.metrics.*} lives) starts and gets
 * the servers' meters, tagged with the backend as with that module. Run in a class loader of the
 * test's class path without the module, as such an application's is: the auto-configuration's
 * classes must load there.
 */
class SockstateMetricsWithoutBootMetricsTests {

    private static final String MODULE = "spring-boot-micrometer-metrics";

    @Test
    void anApplicationWithARegistryButWithoutSpringBootsMetricsModuleStartsAndGetsTheServersMeters() throws Exception {
        List<URL> classPath = new ArrayList<>();
        boolean left = false;
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : path.split(File.pathSeparator)) {
            if (Path.of(entry).getFileName().toString().startsWith(MODULE)) {
                left = true;
                continue;
            }
            classPath.add(url(entry));
        }
        assertThat(left).as("the test's class path has " + MODULE + " to leave out").isTrue();
        try (URLClassLoader loader = new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            assertThatExceptionOfType(ClassNotFoundException.class).as("the module left out")
                    .isThrownBy(() -> loader.loadClass("org.springframework.boot.micrometer.metrics.autoconfigure.MetricsProperties"));
            try {
                @SuppressWarnings("unchecked")
                List<String> seen = (List<String>) loader.loadClass(WithoutBootMetricsApplication.class.getName()).getMethod("run")
                        .invoke(null);
                assertThat(seen.get(0)).isEqualTo(MicrometerServerObserver.class.getName());
                assertThat(seen.get(1)).as("the port's meters tagged with the backend").matches("backend=(epoll|winsock|nio)");
                assertThat(seen).contains("sockstate.dequeues", "sockstate.connections.active");
            }
            finally {
                thread.setContextClassLoader(before);
            }
        }
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        }
        catch (MalformedURLException ex) {
            throw new IllegalStateException(entry, ex);
        }
    }
}

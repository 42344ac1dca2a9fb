package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class BackendsTest {

    @Test
    @EnabledOnOs(OS.LINUX)
    void autoSelectsEpollOnLinux() {
        Backend backend = Backends.select("auto");
        assertThat(backend.name()).isEqualTo("epoll");
        assertThat(backend.availability().available()).isTrue();
        assertThat(backend.availability().reason()).contains("epoll");
    }

    @Test
    void anUnknownNameIsRefusedWithTheKnownOnes() {
        assertThatIllegalArgumentException().isThrownBy(() -> Backends.select("kqueue"))
                .withMessageContaining("Unknown backend 'kqueue'").withMessageContaining("epoll");
    }

    @Test
    void autoFailsWithTheSystemAndEveryBackendsReasonWhenNoneRuns() {
        Backend unavailable = new FixedBackend("iocp", Availability.unavailable("needs an imaginary OS", null), true);
        assertThatExceptionOfType(BackendUnavailableException.class)
                .isThrownBy(() -> Backends.select("auto", List.of(unavailable)))
                .withMessageContaining(System.getProperty("os.name"))
                .withMessageContaining("Linux (epoll)")
                .withMessageContaining("iocp: needs an imaginary OS")
                .satisfies((ex) -> assertThat(ex.backend()).isEqualTo("auto"));
    }

    @Test
    void anUnavailableBackendChosenByNameKeepsItsCause() {
        IllegalStateException cause = new IllegalStateException("library missing");
        Backend unavailable = new FixedBackend("iocp", Availability.unavailable("library missing", cause), false);
        assertThatExceptionOfType(BackendUnavailableException.class)
                .isThrownBy(() -> Backends.select("IOCP", List.of(unavailable)))
                .withMessageContaining("The iocp backend cannot run on")
                .withCause(cause);
    }

    @Test
    void autoSkipsBackendsThatAreNotTheSystemsOwn() {
        Backend foreign = new FixedBackend("foreign", Availability.available("emulated"), false);
        Backend own = new FixedBackend("own", Availability.available("real"), true);
        assertThat(Backends.select("auto", List.of(foreign, own)).name()).isEqualTo("own");
    }

    @Test
    void autoFallsBackToThePortableBackendWithOneWarningNamingTheNativeCause() {
        LinkageError cause = new UnsatisfiedLinkError("jnidispatch: failed to map segment from shared object (noexec)");
        Backend failing = new FixedBackend("epoll", Availability.unavailable("JNA cannot load its native library", cause), true);
        Backend portable = new PortableBackend("nio", Availability.available("the JDK's selector"));
        List<String> warnings = captureWarnings(() -> {
            assertThat(Backends.select("auto", List.of(failing, portable)).name()).isEqualTo("nio");
            assertThat(Backends.select("auto", List.of(failing, portable)).name()).as("asked again").isEqualTo("nio");
        });
        assertThat(warnings).as("one line, however often auto is asked").hasSize(1);
        assertThat(warnings.get(0)).contains("No native socket notification backend runs on " + Backends.system(),
                "epoll: JNA cannot load its native library", "failed to map segment", "using the portable nio backend",
                "sockstate.backend=nio", "Backends.select(\"nio\")");
    }

    @Test
    void autoPrefersTheSystemsOwnBackendToThePortableOneAndSaysNothing() {
        Backend portable = new PortableBackend("nio", Availability.available("the JDK's selector"));
        Backend own = new FixedBackend("own", Availability.available("real"), true);
        List<String> warnings = captureWarnings(() -> assertThat(Backends.select("auto", List.of(portable, own)).name()).isEqualTo("own"));
        assertThat(warnings).isEmpty();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void everySystemHasThePortableBackendOnTheClassPath() {
        assertThat(Backends.all()).filteredOn(Backend::isPortable).extracting(Backend::name).containsExactly("nio");
        assertThat(Backends.select("nio").availability().available()).isTrue();
    }

    /** @return the warnings Backends logged while the action ran */
    private static List<String> captureWarnings(Runnable action) {
        Logger logger = Logger.getLogger(Backends.class.getName());
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {

            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == java.util.logging.Level.WARNING) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            action.run();
        }
        finally {
            logger.removeHandler(handler);
        }
        return warnings;
    }

    private record PortableBackend(String name, Availability availability) implements Backend {

        @Override
        public boolean isNativeToThisSystem() {
            return false;
        }

        @Override
        public boolean isPortable() {
            return true;
        }

        @Override
        public NotificationPort openPort() {
            throw new BackendUnavailableException(this.name, "test backend", null);
        }

        @Override
        public NativeSockets sockets() {
            throw new BackendUnavailableException(this.name, "test backend", null);
        }
    }

    private record FixedBackend(String name, Availability availability, boolean isNativeToThisSystem) implements Backend {

        @Override
        public NotificationPort openPort() {
            throw new BackendUnavailableException(this.name, "test backend", null);
        }

        @Override
        public NativeSockets sockets() {
            throw new BackendUnavailableException(this.name, "test backend", null);
        }
    }
}

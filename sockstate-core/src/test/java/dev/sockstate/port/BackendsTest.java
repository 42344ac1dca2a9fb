package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
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

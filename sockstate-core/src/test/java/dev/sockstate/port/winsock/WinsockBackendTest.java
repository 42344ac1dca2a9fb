package dev.sockstate.port.winsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.BackendUnavailableException;
import dev.sockstate.port.Backends;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class WinsockBackendTest {

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void withoutWindowsOrAnEmulatorTheBackendIsUnavailableNamingTheSystemAndTheBuild() {
        Availability availability = WinsockBackend.probe(null, System.getProperty("os.name"));
        assertThat(availability.available()).isFalse();
        assertThat(availability.reason()).contains("20348").contains(System.getProperty("os.name"))
                .contains("Windows Server 2022");
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void isNotTheSystemsOwnBackendOutsideWindows() {
        assertThat(new WinsockBackend().isNativeToThisSystem()).isFalse();
    }

    @Test
    @EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+")
    void anEmulatorMakesItAvailableAnywhereButAutoStillPicksTheSystemsOwn() {
        Availability availability = new WinsockBackend().availability();
        assertThat(availability.available()).as(availability.reason()).isTrue();
        assertThat(availability.reason()).contains("emulator").contains("ProcessSocketNotifications");
        assertThat(Backends.select("winsock").name()).isEqualTo("winsock");
        if (!new WinsockBackend().isNativeToThisSystem()) {
            assertThat(Backends.select("auto").name()).isNotEqualTo("winsock");
        }
    }

    @Test
    @EnabledOnOs(OS.WINDOWS)
    void autoPicksWinsockOnWindows() {
        Backend backend = Backends.select("auto");
        assertThat(backend.name()).isEqualTo("winsock");
        assertThat(backend.availability().reason()).contains("ProcessSocketNotifications");
    }

    @Test
    void promisesNoEdgeOnEveryArrivalWhateverItIsBoundTo() {
        assertThat(new WinsockBackend().edgeOnEveryArrival()).isFalse();
    }

    @Test
    void isFoundOnTheClassPathAfterEpoll() {
        List<String> names = Backends.all().stream().map(Backend::name).toList();
        assertThat(names).containsExactly("epoll", "winsock", "nio");
    }

    @Test
    void anUnavailableBackendRefusesToOpenAPortWithItsReason() {
        Availability unavailable = WinsockBackend.probe(null, "Plan 9");
        assertThat(unavailable.available()).isFalse();
        assertThat(unavailable.reason()).startsWith("winsock needs Windows build 20348 or later");
        if (!new WinsockBackend().availability().available()) {
            assertThatExceptionOfType(BackendUnavailableException.class).isThrownBy(() -> new WinsockBackend().openPort())
                    .withMessageContaining("20348");
        }
    }
}

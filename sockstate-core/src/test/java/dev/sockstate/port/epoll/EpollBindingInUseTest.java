package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Availability;
import dev.sockstate.port.NotificationPort;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Which binding the epoll backend runs on: in this JVM (FFM from Java 22, JNA before), and in JVMs
 * forked with the property or the native access options that change the choice.
 */
@EnabledOnOs(OS.LINUX)
class EpollBindingInUseTest {

    @Test
    void thisJvmRunsOnFfmFromJava22AndOnJnaBefore() {
        EpollBackend backend = new EpollBackend();
        Availability availability = backend.availability();
        assertThat(availability.available()).as(availability.reason()).isTrue();
        EpollCalls calls = ((EpollSockets) backend.sockets()).calls();
        int release = Runtime.version().feature();
        if (release >= 22) {
            assertThat(calls.getClass().getName()).as("a JDK 22 or later compiles the FFM binding and the backend chooses it")
                    .isEqualTo(BindingChoice.FFM_CLASS);
            assertThat(availability.reason()).endsWith("with epoll, FFM binding (Java " + release + ")");
        }
        else {
            assertThat(calls).isInstanceOf(LinuxNative.Binding.class);
            assertThat(availability.reason()).contains("with epoll, JNA 5.")
                    .endsWith("(FFM not used: FFM needs Java 22, this is Java " + release + ")");
        }
    }

    @Test
    void bothRealBindingsAnswerTheSameAndJnaIsMadeOnRequest() throws Exception {
        BindingChoice jna = BindingChoice.choose("jna", Runtime.version().feature(), () -> {
            throw new AssertionError("FFM must not be made");
        }, LinuxNative.Binding::new);
        assertThat(jna.calls()).isInstanceOf(LinuxNative.Binding.class);
        assertThat(jna.calls().close(-1)).isEqualTo(-1);
        assertThat(jna.calls().errno()).isEqualTo(Errno.EBADF);
        assertThat(jna.calls().strerror(Errno.EBADF)).isEqualTo("Bad file descriptor");
    }

    @Test
    @EnabledForJreRange(minVersion = 22)
    void theFfmBindingCapturesErrnoAndReadsTheCLibrarysText() throws Exception {
        EpollCalls ffm = BindingChoice.loadFfm();
        assertThat(ffm.close(-1)).isEqualTo(-1);
        assertThat(ffm.errno()).isEqualTo(Errno.EBADF);
        assertThat(ffm.epoll_ctl(-1, LinuxAbi.EPOLL_CTL_DEL, -1, 0)).isEqualTo(-1);
        assertThat(ffm.errno()).isEqualTo(Errno.EBADF);
        assertThat(ffm.strerror(Errno.EAGAIN)).isEqualTo("Resource temporarily unavailable");
        int[] other = new int[1];
        Thread thread = new Thread(() -> {
            ffm.eventfd(0, -1);
            other[0] = ffm.errno();
        });
        thread.start();
        thread.join();
        assertThat(other[0]).as("another thread's errno").isEqualTo(Errno.EINVAL);
        assertThat(ffm.errno()).as("this thread's, unchanged").isEqualTo(Errno.EBADF);
    }

    @Test
    @EnabledForJreRange(minVersion = 22)
    void thePropertyChoosesJnaInAForkedJvm() throws Exception {
        Forked forked = fork("--enable-native-access=ALL-UNNAMED", "-D" + BindingChoice.PROPERTY + "=jna");
        assertThat(forked.out()).startsWith("available: Linux ").contains("with epoll, JNA 5.")
                .endsWith("(FFM not used: sockstate.epoll.binding=jna)");
    }

    @Test
    @EnabledForJreRange(minVersion = 22)
    void withoutEnablingNativeAccessFfmRunsAndTheJdkWarnsOnce() throws Exception {
        Forked forked = fork();
        assertThat(forked.out()).startsWith("available: ").endsWith("FFM binding (Java " + Runtime.version().feature() + ")");
        assertThat(forked.err()).contains("WARNING: A restricted method in java.lang.foreign.Linker has been called",
                "--enable-native-access=ALL-UNNAMED");
    }

    @Test
    @EnabledForJreRange(minVersion = 24)
    void whereNativeAccessIsDeniedNeitherBindingRunsAndBothCausesAreNamed() throws Exception {
        Forked forked = fork("--illegal-native-access=deny");
        assertThat(forked.out()).startsWith("unavailable: native access is denied to JNA (--enable-native-access=ALL-UNNAMED"
                + " allows it): java.lang.IllegalCallerException").contains("(FFM not used: java.lang.IllegalCallerException: Illegal"
                + " native access from an unnamed module");
    }

    /** What a forked JVM printed on its standard output and error. */
    private record Forked(String out, String err) {
    }

    /** @return what {@link PrintAvailability} printed in a JVM forked with the options */
    private static Forked fork(String... options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(options));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), PrintAvailability.class.getName()));
        Process process = new ProcessBuilder(command).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the forked JVM ended").isTrue();
        assertThat(process.exitValue()).as(err).isZero();
        return new Forked(out, err);
    }

    /** Prints whether epoll is available and why, after opening a port when it is. */
    public static final class PrintAvailability {

        private PrintAvailability() {
        }

        /** @param arguments none */
        public static void main(String[] arguments) throws Exception {
            EpollBackend backend = new EpollBackend();
            Availability availability = backend.availability();
            if (availability.available()) {
                try (NotificationPort port = backend.openPort()) {
                    System.out.println("available: " + availability.reason());
                }
            }
            else {
                System.out.println("unavailable: " + availability.reason());
            }
        }
    }
}

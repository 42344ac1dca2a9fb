package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.server.AcceptMode;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.InetAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a Unix domain socket listener refuses, each with an error naming the listener and what was
 * wrong, leaving no descriptor open and no file of its own behind.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnixBindRefusalTest {

    private final ServerFixture fixture = new ServerFixture();

    @TempDir
    Path directory;

    private int baseline;

    @BeforeEach
    void countDescriptors() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        try (ServerSocketChannel warm = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            // the JDK's Unix domain channels loaded once
        }
        this.baseline = OpenDescriptors.count();
    }

    @AfterEach
    void noDescriptorLeft() throws Exception {
        this.fixture.close();
        assertThat(OpenDescriptors.count()).as("descriptors: " + OpenDescriptors.networkDescriptors()).isEqualTo(this.baseline);
    }

    @Test
    void aFileThatIsNotASocketIsRefusedAndKept() throws Exception {
        Path path = Files.writeString(this.directory.resolve("data.sock"), "precious");
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> start(path))
                .withMessageContaining("Listener 'echo'").withMessageContaining(path.toString())
                .withMessageContaining("not a socket");
        assertThat(Files.readString(path)).isEqualTo("precious");
    }

    @Test
    void aPathWhereAServerAnswersIsRefusedAndItsFileKept() throws Exception {
        Path path = this.directory.resolve("live.sock");
        try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            live.bind(UnixDomainSocketAddress.of(path));
            assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> start(path))
                    .withMessageContaining("Listener 'echo'").withMessageContaining("a server answers at its path");
            assertThat(path).exists();
        }
    }

    @Test
    void aDirectoryThatDoesNotExistFailsTheBindAndLeavesNothing() {
        Path path = this.directory.resolve("missing/echo.sock");
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> start(path))
                .withMessageContaining("Listener 'echo' could not bind to Unix socket " + path);
    }

    @Test
    void aPathLongerThanSockaddrUnIsRefusedWhenBuilt() {
        Path path = this.directory.resolve("x".repeat(110) + ".sock");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").unixPath(path).handler(new EchoHandler()).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.UNIX_PATH))
                .withMessageContaining("Listener 'echo'").withMessageContaining("at most 107 bytes");
    }

    @Test
    void badPermissionsAndAPathWithAPortAreRefusedWhenBuilt() throws Exception {
        Path path = this.directory.resolve("echo.sock");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").unixPath(path).unixPermissions("rw-rw-").handler(new EchoHandler()).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.UNIX_PERMISSIONS)).withMessageContaining("rw-rw----");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").unixPath(path).portNumber(7000).handler(new EchoHandler()).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.UNIX_PATH));
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).unixPermissions("rw-------")
                        .handler(new EchoHandler()).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.UNIX_PERMISSIONS));
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").unixPath(path).accept(AcceptMode.PER_WORKER).handler(new EchoHandler()).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.ACCEPT)).withMessageContaining("one path is one listening socket");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").unixPath(path)
                        .proxyProtocol(ProxyProtocol.accept(ProxyProtocol.Version.ANY).withTrustedProxies(List.of("10.0.0.0/8")))
                        .handler(new EchoHandler()).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.PROXY_PROTOCOL))
                .withMessageContaining("its peers have no IP address to trust");
    }

    @Test
    void aSecondListenerFailingRemovesTheFirstOnesFile() throws Exception {
        Path first = this.directory.resolve("first.sock");
        Path clash = Files.writeString(this.directory.resolve("clash.sock"), "not a socket");
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> this.fixture.start(1,
                ListenerSettings.tcp("first").unixPath(first).handler(new EchoHandler()).build(),
                ListenerSettings.tcp("second").unixPath(clash).handler(new EchoHandler()).build()))
                .withMessageContaining("Listener 'second'");
        assertThat(first).doesNotExist();
    }

    private void start(Path path) {
        this.fixture.start(1, ListenerSettings.tcp("echo").unixPath(path).handler(new EchoHandler()).build());
    }
}

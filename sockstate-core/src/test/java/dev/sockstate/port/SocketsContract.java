package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What a contract of a backend's native sockets keeps around its tests: the backend's sockets, the
 * handles a test opened (closed after it), and the process's descriptors, which must be as many after
 * the suite as before it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
abstract class SocketsContract {

    private int descriptorsBefore;

    /** The backend's sockets, for the test running. */
    protected NativeSockets sockets;

    private final List<Long> handles = new ArrayList<>();

    /** @return the backend under test */
    protected abstract Backend backend();

    /** Opens what the JDK keeps open once it used sockets, so that the count before the suite holds it. */
    protected void warmUp() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
    }

    @BeforeAll
    void countDescriptors() throws Exception {
        warmUp();
        this.descriptorsBefore = OpenDescriptors.count();
    }

    @AfterAll
    void noDescriptorIsLeftOpen() {
        assertThat(OpenDescriptors.count()).as("descriptors after the suite: %s", OpenDescriptors.networkDescriptors())
                .isEqualTo(this.descriptorsBefore);
    }

    @BeforeEach
    void takeSockets() {
        this.sockets = backend().sockets();
    }

    @AfterEach
    void closeHandles() throws Exception {
        for (long handle : this.handles) {
            this.sockets.close(handle);
        }
        this.handles.clear();
    }

    /** @return a new socket, closed after the test */
    protected long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException {
        long handle = this.sockets.open(protocol, family);
        this.handles.add(handle);
        return handle;
    }

    /** @return a connection accepted within 5 s, closed after the test */
    protected long acceptWithin(long listener) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        long connection;
        while ((connection = this.sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
            assertThat(System.currentTimeMillis()).as("accept within 5 s").isLessThan(deadline);
            Thread.sleep(1);
        }
        this.handles.add(connection);
        return connection;
    }
}

package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Each binding's hot calls allocate nothing: after a warm-up, 100,000 rounds of a one-byte
 * {@code send}, its {@code recv}, a {@code recv} that would block (read back through errno) and an
 * {@code epoll_wait} that finds nothing, on a connected loopback pair, measured with the thread's
 * allocated bytes.
 */
@EnabledOnOs(OS.LINUX)
class EpollCallsAllocationTest {

    private static final int ROUNDS = 100_000;

    /** Bytes the measurement itself may cost (the JVM's own, such as a compilation's), far from a byte a call. */
    private static final long ALLOWED_BYTES = 4_096;

    @Test
    void jnasBindingAllocatesNothingPerCall() throws Exception {
        assertThat(allocatedBytes(new LinuxNative.Binding())).as("bytes allocated by %,d rounds of 4 calls", ROUNDS)
                .isLessThan(ALLOWED_BYTES);
    }

    @Test
    @EnabledForJreRange(minVersion = 22)
    void theFfmBindingAllocatesNothingPerCall() throws Exception {
        assertThat(allocatedBytes(BindingChoice.loadFfm())).as("bytes allocated by %,d rounds of 4 calls", ROUNDS)
                .isLessThan(ALLOWED_BYTES);
    }

    /** @return the bytes this thread allocated over the measured rounds, after three rounds of warm-up */
    private static long allocatedBytes(EpollCalls calls) throws Exception {
        EpollSockets sockets = new EpollSockets(calls);
        long listener = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        long client = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        long server = NativeSockets.NO_SOCKET;
        int epollFd = calls.epoll_create1(LinuxAbi.EPOLL_CLOEXEC);
        assertThat(epollFd).as("epoll_create1").isNotNegative();
        try {
            sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.listen(listener, 1);
            sockets.connect(client, sockets.localAddress(listener));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while ((server = sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                assertThat(System.nanoTime()).as("accepted within 5 s").isLessThan(deadline);
                Thread.onSpinWait();
            }
            NativeBuffer buffer = sockets.allocate(64);
            NativeBuffer events = sockets.allocate(LinuxAbi.EPOLL_EVENT_SIZE);
            Pair pair = new Pair(calls, (int) client, (int) server, epollFd, buffer.address(), events.address());
            for (int i = 0; i < 3; i++) {
                pair.rounds(ROUNDS);
            }
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            pair.rounds(ROUNDS);
            return threads.getCurrentThreadAllocatedBytes() - before;
        }
        finally {
            calls.close(epollFd);
            if (server != NativeSockets.NO_SOCKET) {
                sockets.close(server);
            }
            sockets.close(client);
            sockets.close(listener);
        }
    }

    /** A connected pair's descriptors, an empty epoll instance and two native buffers, called through one binding. */
    private record Pair(EpollCalls calls, int client, int server, int epollFd, long buffer, long events) {

        /** Sends a byte, receives it, receives once more (EAGAIN) and waits for nothing, each time checking the result. */
        void rounds(int count) {
            for (int i = 0; i < count; i++) {
                long sent = this.calls.send(this.client, this.buffer, 1, LinuxAbi.MSG_NOSIGNAL);
                if (sent != 1) {
                    throw new AssertionError("send returned " + sent + ", errno " + this.calls.errno());
                }
                long received = this.calls.recv(this.server, this.buffer, 64, 0);
                for (int spins = 0; received == -1 && this.calls.errno() == Errno.EAGAIN && spins < 1_000_000; spins++) {
                    received = this.calls.recv(this.server, this.buffer, 64, 0); // loopback delivers at once, nearly always
                }
                if (received != 1) {
                    throw new AssertionError("recv returned " + received + ", errno " + this.calls.errno());
                }
                if (this.calls.recv(this.server, this.buffer, 64, 0) != -1 || this.calls.errno() != Errno.EAGAIN) {
                    throw new AssertionError("an empty socket's recv would block, errno " + this.calls.errno());
                }
                int ready = this.calls.epoll_wait(this.epollFd, this.events, 1, 0);
                if (ready != 0) {
                    throw new AssertionError("epoll_wait found " + ready + ", errno " + this.calls.errno());
                }
            }
        }
    }
}

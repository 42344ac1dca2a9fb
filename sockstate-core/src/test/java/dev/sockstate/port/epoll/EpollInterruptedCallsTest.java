package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.OutgoingDatagrams;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A signal may interrupt any system call with {@code EINTR}: the sockets retry the call (or, for a
 * connect, report it under way, as Linux completes it in the background), and never report an
 * interrupted call as the connection's failure.
 */
@EnabledOnOs(OS.LINUX)
class EpollInterruptedCallsTest {

    @Test
    void everyCallInterruptedOnceStillAcceptsConnectsSendsAndReceives() throws Exception {
        InterruptingCalls calls = new InterruptingCalls(new LinuxNative.Binding());
        EpollSockets sockets = new EpollSockets(calls);
        long listener = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        long client = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        long server = NativeSockets.NO_SOCKET;
        try {
            sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.listen(listener, 1);
            sockets.connect(client, sockets.localAddress(listener));
            server = awaitAccepted(sockets, listener);
            awaitConnected(sockets, client);

            NativeBuffer out = sockets.allocate(64);
            out.buffer().put("interrupted".getBytes(StandardCharsets.US_ASCII)).flip();
            assertThat(sockets.send(client, out)).as("bytes sent").isEqualTo(11);
            NativeBuffer in = sockets.allocate(64);
            assertThat(awaitReceived(sockets, server, in)).as("bytes received").isEqualTo(11);
            assertThat(StandardCharsets.US_ASCII.decode(in.buffer().flip()).toString()).isEqualTo("interrupted");

            long sender = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
            long receiver = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
            try {
                sockets.bind(receiver, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                PeerAddress target = new PeerAddress();
                target.set((InetSocketAddress) sockets.localAddress(receiver));
                NativeBuffer datagram = sockets.allocate(64);
                datagram.buffer().put("datagram".getBytes(StandardCharsets.US_ASCII)).flip();
                assertThat(sockets.sendTo(sender, datagram, target)).as("datagram sent").isEqualTo(8);
                NativeBuffer arrived = sockets.allocate(64);
                PeerAddress from = new PeerAddress();
                long deadline = System.nanoTime() + 5_000_000_000L;
                int length;
                while ((length = sockets.receiveFrom(receiver, arrived, from)) == NativeSockets.WOULD_BLOCK) {
                    assertThat(System.nanoTime()).as("a datagram within 5 s").isLessThan(deadline);
                    Thread.sleep(1);
                }
                assertThat(length).as("datagram received").isEqualTo(8);
                assertThat(sockets.sendTo(sender, datagram.buffer().rewind(), target)).as("datagram sent again").isEqualTo(8);
                DatagramBatch batch = sockets.datagramBatch(4, 64);
                int count;
                while ((count = sockets.receiveBatch(receiver, batch)) == NativeSockets.WOULD_BLOCK) {
                    assertThat(System.nanoTime()).as("a datagram within 5 s").isLessThan(deadline);
                    Thread.sleep(1);
                }
                assertThat(count).as("datagrams received in a batch").isOne();
                assertThat(batch.datagram(0).remaining()).isEqualTo(8);
                OutgoingDatagrams outgoing = sockets.outgoingDatagrams(2);
                outgoing.add(ByteBuffer.wrap("batched".getBytes(StandardCharsets.US_ASCII)), target);
                assertThat(sockets.sendBatch(sender, outgoing, 0)).as("datagrams sent in a batch").isOne();
                arrived.buffer().clear();
                while ((length = sockets.receiveFrom(receiver, arrived, from)) == NativeSockets.WOULD_BLOCK) {
                    assertThat(System.nanoTime()).as("a datagram within 5 s").isLessThan(deadline);
                    Thread.sleep(1);
                }
                assertThat(length).as("the batch's datagram received").isEqualTo(7);
            }
            finally {
                sockets.close(sender);
                sockets.close(receiver);
            }
            assertThat(calls.interrupted).as("the calls interrupted once each")
                    .containsOnlyKeys("accept4", "connect", "send", "recv", "sendto", "recvfrom",
                            "recvmmsg", "sendmmsg");
        }
        finally {
            if (server != NativeSockets.NO_SOCKET) {
                sockets.close(server);
            }
            sockets.close(client);
            sockets.close(listener);
        }
    }

    private static long awaitAccepted(EpollSockets sockets, long listener) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        long server;
        while ((server = sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
            assertThat(System.nanoTime()).as("accepted within 5 s").isLessThan(deadline);
            Thread.sleep(1);
        }
        return server;
    }

    private static void awaitConnected(EpollSockets sockets, long client) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            try {
                sockets.remoteAddress(client);
                return;
            }
            catch (NativeIoException ex) {
                assertThat(System.nanoTime()).as("connected within 5 s").isLessThan(deadline);
                Thread.sleep(1);
            }
        }
    }

    private static int awaitReceived(EpollSockets sockets, long socket, NativeBuffer buffer) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        int read;
        while ((read = sockets.recv(socket, buffer)) == NativeSockets.WOULD_BLOCK) {
            assertThat(System.nanoTime()).as("received within 5 s").isLessThan(deadline);
            Thread.sleep(1);
        }
        return read;
    }

    /** The real calls, but the first of each kind fails with {@code EINTR} before doing anything. */
    private static final class InterruptingCalls implements EpollCalls {

        private final EpollCalls real;

        private final Map<String, AtomicInteger> interrupted = new ConcurrentHashMap<>();

        private final ThreadLocal<Integer> errno = new ThreadLocal<>();

        InterruptingCalls(EpollCalls real) {
            this.real = real;
        }

        /** @return whether this call is the first of its kind, which then fails with EINTR */
        private boolean interrupt(String call) {
            if (this.interrupted.computeIfAbsent(call, (name) -> new AtomicInteger()).getAndIncrement() == 0) {
                this.errno.set(Errno.EINTR);
                return true;
            }
            this.errno.remove();
            return false;
        }

        @Override
        public String binding() {
            return this.real.binding();
        }

        @Override
        public int errno() {
            Integer interruption = this.errno.get();
            this.errno.remove();
            return (interruption != null) ? interruption : this.real.errno();
        }

        @Override
        public int epoll_create1(int flags) {
            return this.real.epoll_create1(flags);
        }

        @Override
        public int epoll_ctl(int epfd, int op, int fd, long event) {
            return this.real.epoll_ctl(epfd, op, fd, event);
        }

        @Override
        public int epoll_wait(int epfd, long events, int maxEvents, int timeout) {
            return this.real.epoll_wait(epfd, events, maxEvents, timeout);
        }

        @Override
        public int eventfd(int initval, int flags) {
            return this.real.eventfd(initval, flags);
        }

        @Override
        public long read(int fd, long buf, long count) {
            return this.real.read(fd, buf, count);
        }

        @Override
        public long write(int fd, long buf, long count) {
            return this.real.write(fd, buf, count);
        }

        @Override
        public int close(int fd) {
            return this.real.close(fd);
        }

        @Override
        public int socket(int domain, int type, int protocol) {
            return this.real.socket(domain, type, protocol);
        }

        @Override
        public int bind(int fd, long addr, int addrlen) {
            return this.real.bind(fd, addr, addrlen);
        }

        @Override
        public int listen(int fd, int backlog) {
            return this.real.listen(fd, backlog);
        }

        @Override
        public int accept4(int fd, long addr, long addrlen, int flags) {
            return interrupt("accept4") ? -1 : this.real.accept4(fd, addr, addrlen, flags);
        }

        @Override
        public int connect(int fd, long addr, int addrlen) {
            // Interrupted after the kernel began: Linux then completes the connection in the background.
            int result = this.real.connect(fd, addr, addrlen);
            boolean first = interrupt("connect");
            if (result == 0) {
                this.errno.remove();
            }
            return (result != 0 && first) ? -1 : result;
        }

        @Override
        public long recv(int fd, long buf, long len, int flags) {
            return interrupt("recv") ? -1 : this.real.recv(fd, buf, len, flags);
        }

        @Override
        public long send(int fd, long buf, long len, int flags) {
            return interrupt("send") ? -1 : this.real.send(fd, buf, len, flags);
        }

        @Override
        public long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen) {
            return interrupt("recvfrom") ? -1 : this.real.recvfrom(fd, buf, len, flags, addr, addrlen);
        }

        @Override
        public int recvmmsg(int fd, long msgvec, int vlen, int flags, long timeout) {
            return interrupt("recvmmsg") ? -1 : this.real.recvmmsg(fd, msgvec, vlen, flags, timeout);
        }

        @Override
        public int sendmmsg(int fd, long msgvec, int vlen, int flags) {
            return interrupt("sendmmsg") ? -1 : this.real.sendmmsg(fd, msgvec, vlen, flags);
        }

        @Override
        public long sendto(int fd, long buf, long len, int flags, long addr, int addrlen) {
            return interrupt("sendto") ? -1 : this.real.sendto(fd, buf, len, flags, addr, addrlen);
        }

        @Override
        public int setsockopt(int fd, int level, int name, long value, int len) {
            return this.real.setsockopt(fd, level, name, value, len);
        }

        @Override
        public int getsockopt(int fd, int level, int name, long value, long len) {
            return this.real.getsockopt(fd, level, name, value, len);
        }

        @Override
        public int shutdown(int fd, int how) {
            return this.real.shutdown(fd, how);
        }

        @Override
        public int getsockname(int fd, long addr, long addrlen) {
            return this.real.getsockname(fd, addr, addrlen);
        }

        @Override
        public int getpeername(int fd, long addr, long addrlen) {
            return this.real.getpeername(fd, addr, addrlen);
        }

        @Override
        public String strerror(int errnum) {
            return this.real.strerror(errnum);
        }

        @Override
        public long addressOf(ByteBuffer direct) {
            return this.real.addressOf(direct);
        }
    }
}

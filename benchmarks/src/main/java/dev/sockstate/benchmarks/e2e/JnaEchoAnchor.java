package dev.sockstate.benchmarks.e2e;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

/**
 * The C anchor's {@code reuseport} mode ({@code benchmarks/src/main/c/echo_anchor.c}) written again in
 * Java, each libc call bound with JNA's direct mapping as sockstate's epoll backend binds it on Java
 * 17: a listening socket and an epoll instance per thread, bound with SO_REUSEPORT, every connection
 * registered level persistent; accept4 until it would block, TCP_NODELAY, one recv a readiness and
 * its echo; what a send leaves waits in a copy until the socket is writable. No engine: beside the C
 * anchor and sockstate, what the binding and a JVM cost on their own. 64-bit Linux only; a failure of
 * a call that C's anchor treats as fatal ends the process, as it ends C's.
 */
final class JnaEchoAnchor implements EchoServer {

    private static final int EPOLLIN = 0x1;

    private static final int EPOLLOUT = 0x4;

    private static final int EPOLLERR = 0x8;

    private static final int EPOLLHUP = 0x10;

    private static final int EPOLL_CTL_ADD = 1;

    private static final int EPOLL_CTL_MOD = 3;

    /** {@code struct epoll_event}'s size: packed on x86-64 (12 bytes), aligned elsewhere (16). */
    private static final int EPOLL_EVENT = isX86() ? 12 : 16;

    /** Where its {@code data} field starts. */
    private static final int EPOLL_DATA = isX86() ? 4 : 8;

    private static final int EVENTS = 256;

    private static final int BUFFER = 16384;

    private static final int NONBLOCK = 04000;

    private static final int CLOEXEC = 02000000;

    private static final int EAGAIN = 11;

    private static final int EINTR = 4;

    private static final int ECONNABORTED = 103;

    private static final int EMFILE = 24;

    private static final int ENFILE = 23;

    private static final int MSG_NOSIGNAL = 0x4000;

    static {
        Native.register(NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    private final List<Loop> loops = new ArrayList<>();

    private volatile long nativeBytes;

    private static native int epoll_create1(int flags);

    private static native int epoll_ctl(int epfd, int op, int fd, long event);

    private static native int epoll_wait(int epfd, long events, int maxEvents, int timeout);

    private static native int eventfd(int initval, int flags);

    private static native long write(int fd, long buf, long count);

    private static native int socket(int domain, int type, int protocol);

    private static native int setsockopt(int fd, int level, int name, long value, int len);

    private static native int bind(int fd, long addr, int addrlen);

    private static native int listen(int fd, int backlog);

    private static native int getsockname(int fd, long addr, long addrlen);

    private static native int accept4(int fd, long addr, long addrlen, int flags);

    private static native long recv(int fd, long buf, long len, int flags);

    private static native long send(int fd, long buf, long len, int flags);

    private static native int close(int fd);

    private static boolean isX86() {
        String arch = System.getProperty("os.arch");
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    @Override
    public int start(int workers) {
        if (!Platform.isLinux() || Native.POINTER_SIZE != 8 || Native.LONG_SIZE != 8) {
            throw new IllegalStateException("The JNA anchor runs on 64-bit Linux only");
        }
        if (EchoServer.linesFramed()) {
            throw new IllegalStateException("The anchors echo raw reads; they do not run with --framing line");
        }
        int port = 0;
        for (int i = 0; i < workers; i++) {
            Loop loop = new Loop(port);
            port = loop.port;
            this.loops.add(loop);
        }
        for (int i = 0; i < workers; i++) {
            Thread thread = new Thread(this.loops.get(i), "jna-anchor-" + (i + 1));
            thread.setDaemon(true);
            thread.start();
            this.loops.get(i).started = true;
        }
        return port;
    }

    @Override
    public long untrackedNativeBytes() {
        return this.nativeBytes;
    }

    @Override
    public void close() throws InterruptedException {
        Memory one = new Memory(8);
        one.setLong(0, 1);
        for (Loop loop : this.loops) {
            loop.running = false;
            if (loop.started) {
                write(loop.wakeup, Pointer.nativeValue(one), 8);
            }
            else {
                loop.closeDescriptors();
            }
        }
        for (Loop loop : this.loops) {
            if (loop.started && !loop.stopped.await(5, TimeUnit.SECONDS)) {
                throw new IllegalStateException("A JNA anchor's thread did not stop within 5 s");
            }
        }
    }

    private Memory allocate(long size) {
        Memory memory = new Memory(size);
        this.nativeBytes += size;
        return memory;
    }

    private static void check(int result, String call) {
        if (result < 0) {
            throw new IllegalStateException(call + " failed: errno " + Native.getLastError());
        }
    }

    /** One thread's listening socket, epoll instance and loop. */
    private final class Loop implements Runnable {

        final int epoll;

        final int listener;

        final int wakeup;

        final int port;

        final Memory events = allocate((long) EPOLL_EVENT * EVENTS);

        final ByteBuffer eventView = this.events.getByteBuffer(0, this.events.size()).order(ByteOrder.nativeOrder());

        final Memory event = allocate(EPOLL_EVENT);

        final ByteBuffer eventOne = this.event.getByteBuffer(0, EPOLL_EVENT).order(ByteOrder.nativeOrder());

        final Memory buffer = allocate(BUFFER);

        final ByteBuffer bufferView = this.buffer.getByteBuffer(0, BUFFER);

        final Memory on = allocate(4);

        /** A send's rest that would have blocked, by descriptor; only this thread touches it. */
        byte[][] parked = new byte[1024][];

        volatile boolean running = true;

        /** Whether its thread was started (a start that failed part way leaves the rest unstarted). */
        boolean started;

        final CountDownLatch stopped = new CountDownLatch(1);

        Loop(int port) {
            this.on.setInt(0, 1);
            this.epoll = epoll_create1(CLOEXEC);
            check(this.epoll, "epoll_create1");
            this.listener = socket(2, 1 | NONBLOCK | CLOEXEC, 0);
            check(this.listener, "socket");
            check(setsockopt(this.listener, 1, 2, Pointer.nativeValue(this.on), 4), "SO_REUSEADDR");
            check(setsockopt(this.listener, 1, 15, Pointer.nativeValue(this.on), 4), "SO_REUSEPORT");
            Memory address = new Memory(16);
            address.clear();
            address.setShort(0, (short) 2);
            address.setByte(2, (byte) (port >> 8));
            address.setByte(3, (byte) port);
            address.setByte(4, (byte) 127);
            address.setByte(7, (byte) 1);
            check(bind(this.listener, Pointer.nativeValue(address), 16), "bind");
            check(listen(this.listener, 4096), "listen");
            Memory length = new Memory(4);
            length.setInt(0, 16);
            check(getsockname(this.listener, Pointer.nativeValue(address), Pointer.nativeValue(length)), "getsockname");
            this.port = ((address.getByte(2) & 0xff) << 8) | (address.getByte(3) & 0xff);
            this.wakeup = eventfd(0, NONBLOCK | CLOEXEC);
            check(this.wakeup, "eventfd");
            interest(EPOLL_CTL_ADD, this.listener, EPOLLIN);
            interest(EPOLL_CTL_ADD, this.wakeup, EPOLLIN);
        }

        private void interest(int operation, int fd, int events) {
            this.eventOne.putInt(0, events);
            this.eventOne.putLong(EPOLL_DATA, fd);
            check(epoll_ctl(this.epoll, operation, fd, Pointer.nativeValue(this.event)), "epoll_ctl");
        }

        @Override
        public void run() {
            long events = Pointer.nativeValue(this.events);
            try {
                while (this.running) {
                    int ready = epoll_wait(this.epoll, events, EVENTS, -1);
                    if (ready < 0) {
                        if (Native.getLastError() == EINTR) {
                            continue;
                        }
                        throw new IllegalStateException("epoll_wait failed: errno " + Native.getLastError());
                    }
                    for (int i = 0; i < ready; i++) {
                        int fd = (int) this.eventView.getLong(EPOLL_EVENT * i + EPOLL_DATA);
                        if (fd == this.listener) {
                            acceptRound();
                        }
                        else if (fd != this.wakeup) {
                            serve(fd, this.eventView.getInt(EPOLL_EVENT * i));
                        }
                    }
                }
            }
            catch (RuntimeException ex) {
                // C's anchor exits on a call it cannot do without; so does this one, for the harness to see
                ex.printStackTrace();
                System.exit(1);
            }
            finally {
                closeDescriptors();
                this.stopped.countDown();
            }
        }

        void closeDescriptors() {
            close(this.listener);
            close(this.wakeup);
            close(this.epoll);
        }

        private void acceptRound() {
            for (;;) {
                int fd = accept4(this.listener, 0, 0, NONBLOCK | CLOEXEC);
                if (fd < 0) {
                    int errno = Native.getLastError();
                    if (errno == EMFILE || errno == ENFILE) {
                        System.err.println("accept4: out of descriptors (errno " + errno + ")");
                    }
                    else if (errno != EAGAIN && errno != ECONNABORTED && errno != EINTR) {
                        throw new IllegalStateException("accept4 failed: errno " + errno);
                    }
                    return;
                }
                setsockopt(fd, 6, 1, Pointer.nativeValue(this.on), 4);
                interest(EPOLL_CTL_ADD, fd, EPOLLIN);
            }
        }

        private void serve(int fd, int events) {
            int outcome;
            byte[] rest = (fd < this.parked.length) ? this.parked[fd] : null;
            if (rest != null) {
                if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) {
                    interest(EPOLL_CTL_MOD, fd, EPOLLOUT);
                    return;
                }
                this.parked[fd] = null;
                this.bufferView.put(0, rest);
                outcome = sendOrPark(fd, 0, rest.length);
            }
            else {
                long received = recv(fd, Pointer.nativeValue(this.buffer), BUFFER, 0);
                int errno = (received < 0) ? Native.getLastError() : 0;
                if (received == 0 || (received < 0 && errno != EAGAIN && errno != EINTR)) {
                    closeConnection(fd);
                    return;
                }
                outcome = (received > 0) ? sendOrPark(fd, 0, (int) received) : 0;
            }
            if (outcome < 0) {
                closeConnection(fd);
            }
            else if (outcome > 0) {
                interest(EPOLL_CTL_MOD, fd, EPOLLOUT);
            }
            else if ((events & EPOLLOUT) != 0) {
                interest(EPOLL_CTL_MOD, fd, EPOLLIN);
            }
        }

        private void closeConnection(int fd) {
            if (fd < this.parked.length) {
                this.parked[fd] = null;
            }
            close(fd);
        }

        /** Sends the buffer's bytes from offset; parks the rest. Returns 0 when all went, 1 when parked, -1 on failure. */
        private int sendOrPark(int fd, int offset, int length) {
            while (length > 0) {
                long sent = send(fd, Pointer.nativeValue(this.buffer) + offset, length, MSG_NOSIGNAL);
                if (sent < 0) {
                    int errno = Native.getLastError();
                    if (errno == EINTR) {
                        continue;
                    }
                    if (errno != EAGAIN) {
                        return -1;
                    }
                    byte[] rest = new byte[length];
                    this.bufferView.get(offset, rest);
                    if (fd >= this.parked.length) {
                        this.parked = Arrays.copyOf(this.parked, Math.max(fd + 1, this.parked.length * 2));
                    }
                    this.parked[fd] = rest;
                    return 1;
                }
                offset += (int) sent;
                length -= (int) sent;
            }
            return 0;
        }
    }
}

package dev.sockstate.port.epoll;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import dev.sockstate.port.BackendUnavailableException;

/**
 * The libc functions the epoll backend calls, bound with JNA direct mapping ({@code Native.register})
 * so that a call costs a JNI transition and nothing more: pointers are passed as {@code long}
 * addresses and {@code size_t}/{@code ssize_t} as {@code long} (64-bit Linux only). The bound
 * methods are private: the backend calls them through a {@link Binding}, the {@link EpollCalls} it
 * is given; the constants it shares with any other binding are {@link LinuxAbi}'s. This is the only
 * class of the backend that touches JNA.
 */
final class LinuxNative {

    static {
        Native.register(NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    private LinuxNative() {
    }

    private static native int epoll_create1(int flags);

    private static native int epoll_ctl(int epfd, int op, int fd, long event);

    private static native int epoll_wait(int epfd, long events, int maxEvents, int timeout);

    private static native int eventfd(int initval, int flags);

    private static native long read(int fd, long buf, long count);

    private static native long write(int fd, long buf, long count);

    private static native int close(int fd);

    private static native int socket(int domain, int type, int protocol);

    private static native int bind(int fd, long addr, int addrlen);

    private static native int listen(int fd, int backlog);

    private static native int accept4(int fd, long addr, long addrlen, int flags);

    private static native int connect(int fd, long addr, int addrlen);

    private static native long recv(int fd, long buf, long len, int flags);

    private static native long send(int fd, long buf, long len, int flags);

    private static native long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen);

    private static native long sendto(int fd, long buf, long len, int flags, long addr, int addrlen);

    private static native int recvmmsg(int fd, long msgvec, int vlen, int flags, long timeout);

    private static native int sendmmsg(int fd, long msgvec, int vlen, int flags);

    private static native int setsockopt(int fd, int level, int name, long value, int len);

    private static native int getsockopt(int fd, int level, int name, long value, long len);

    private static native int shutdown(int fd, int how);

    private static native int getsockname(int fd, long addr, long addrlen);

    private static native int getpeername(int fd, long addr, long addrlen);

    private static native String strerror(int errnum);

    /**
     * JNA's binding as the instance the backend is given: each call is the bound static method, so
     * it costs what a direct call costs. Making it loads JNA, its first call binds libc; either
     * throws a {@link LinkageError} when JNA cannot.
     */
    static final class Binding implements EpollCalls {

        /** @throws BackendUnavailableException on a JVM whose pointers or C {@code long}s are not 64-bit */
        Binding() {
            if (Native.POINTER_SIZE != 8 || Native.LONG_SIZE != 8) {
                throw new BackendUnavailableException(EpollBackend.NAME, "epoll needs a 64-bit JVM, this one has "
                        + (Native.POINTER_SIZE * 8) + "-bit pointers", null);
            }
        }

        @Override
        public String binding() {
            return "JNA " + Native.VERSION;
        }

        @Override
        public int errno() {
            return Native.getLastError();
        }

        @Override
        public int epoll_create1(int flags) {
            return LinuxNative.epoll_create1(flags);
        }

        @Override
        public int epoll_ctl(int epfd, int op, int fd, long event) {
            return LinuxNative.epoll_ctl(epfd, op, fd, event);
        }

        @Override
        public int epoll_wait(int epfd, long events, int maxEvents, int timeout) {
            return LinuxNative.epoll_wait(epfd, events, maxEvents, timeout);
        }

        @Override
        public int eventfd(int initval, int flags) {
            return LinuxNative.eventfd(initval, flags);
        }

        @Override
        public long read(int fd, long buf, long count) {
            return LinuxNative.read(fd, buf, count);
        }

        @Override
        public long write(int fd, long buf, long count) {
            return LinuxNative.write(fd, buf, count);
        }

        @Override
        public int close(int fd) {
            return LinuxNative.close(fd);
        }

        @Override
        public int socket(int domain, int type, int protocol) {
            return LinuxNative.socket(domain, type, protocol);
        }

        @Override
        public int bind(int fd, long addr, int addrlen) {
            return LinuxNative.bind(fd, addr, addrlen);
        }

        @Override
        public int listen(int fd, int backlog) {
            return LinuxNative.listen(fd, backlog);
        }

        @Override
        public int accept4(int fd, long addr, long addrlen, int flags) {
            return LinuxNative.accept4(fd, addr, addrlen, flags);
        }

        @Override
        public int connect(int fd, long addr, int addrlen) {
            return LinuxNative.connect(fd, addr, addrlen);
        }

        @Override
        public long recv(int fd, long buf, long len, int flags) {
            return LinuxNative.recv(fd, buf, len, flags);
        }

        @Override
        public long send(int fd, long buf, long len, int flags) {
            return LinuxNative.send(fd, buf, len, flags);
        }

        @Override
        public long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen) {
            return LinuxNative.recvfrom(fd, buf, len, flags, addr, addrlen);
        }

        @Override
        public long sendto(int fd, long buf, long len, int flags, long addr, int addrlen) {
            return LinuxNative.sendto(fd, buf, len, flags, addr, addrlen);
        }

        @Override
        public int recvmmsg(int fd, long msgvec, int vlen, int flags, long timeout) {
            return LinuxNative.recvmmsg(fd, msgvec, vlen, flags, timeout);
        }

        @Override
        public int sendmmsg(int fd, long msgvec, int vlen, int flags) {
            return LinuxNative.sendmmsg(fd, msgvec, vlen, flags);
        }

        @Override
        public int setsockopt(int fd, int level, int name, long value, int len) {
            return LinuxNative.setsockopt(fd, level, name, value, len);
        }

        @Override
        public int getsockopt(int fd, int level, int name, long value, long len) {
            return LinuxNative.getsockopt(fd, level, name, value, len);
        }

        @Override
        public int shutdown(int fd, int how) {
            return LinuxNative.shutdown(fd, how);
        }

        @Override
        public int getsockname(int fd, long addr, long addrlen) {
            return LinuxNative.getsockname(fd, addr, addrlen);
        }

        @Override
        public int getpeername(int fd, long addr, long addrlen) {
            return LinuxNative.getpeername(fd, addr, addrlen);
        }

        @Override
        public String strerror(int errnum) {
            return LinuxNative.strerror(errnum);
        }

        /** Allocates a JNA pointer: not for hot paths. */
        @Override
        public long addressOf(java.nio.ByteBuffer direct) {
            return com.sun.jna.Pointer.nativeValue(Native.getDirectBufferPointer(direct));
        }
    }
}

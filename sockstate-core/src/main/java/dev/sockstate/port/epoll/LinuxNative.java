package dev.sockstate.port.epoll;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * The libc functions the epoll backend calls, bound with JNA direct mapping ({@code Native.register})
 * so that a call costs a JNI transition and nothing more: pointers are passed as {@code long}
 * addresses and {@code size_t}/{@code ssize_t} as {@code long} (64-bit Linux only). The thread's
 * errno after a failed call is read with {@link #errno()}. This is the only class of the backend
 * that touches JNA's native binding.
 */
final class LinuxNative {

    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = 1;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;

    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_KEEPALIVE = 9;
    static final int SO_REUSEPORT = 15;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int IPPROTO_IPV6 = 41;
    static final int IPV6_V6ONLY = 26;

    static final int MSG_NOSIGNAL = 0x4000;
    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;
    static final int SHUT_RDWR = 2;

    static final int EPOLL_CLOEXEC = 0x80000;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLL_CTL_MOD = 3;
    static final int EPOLLIN = 0x001;
    static final int EPOLLOUT = 0x004;
    static final int EPOLLERR = 0x008;
    static final int EPOLLHUP = 0x010;
    static final int EPOLLRDHUP = 0x2000;
    static final int EPOLLONESHOT = 1 << 30;
    static final int EPOLLET = 1 << 31;

    static final int EFD_SEMAPHORE = 1;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;

    /** {@code struct epoll_event} is packed on x86-64 (12 bytes, data at 4), naturally aligned elsewhere. */
    static final int EPOLL_EVENT_SIZE = "x86-64".equals(Platform.ARCH) ? 12 : 16;
    static final int EPOLL_EVENT_DATA_OFFSET = "x86-64".equals(Platform.ARCH) ? 4 : 8;

    static {
        Native.register(NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    private LinuxNative() {
    }

    /** @return errno of this thread's last native call */
    static int errno() {
        return Native.getLastError();
    }

    static native int epoll_create1(int flags);

    static native int epoll_ctl(int epfd, int op, int fd, long event);

    static native int epoll_wait(int epfd, long events, int maxEvents, int timeout);

    static native int eventfd(int initval, int flags);

    static native long read(int fd, long buf, long count);

    static native long write(int fd, long buf, long count);

    static native int close(int fd);

    static native int socket(int domain, int type, int protocol);

    static native int bind(int fd, long addr, int addrlen);

    static native int listen(int fd, int backlog);

    static native int accept4(int fd, long addr, long addrlen, int flags);

    static native int connect(int fd, long addr, int addrlen);

    static native long recv(int fd, long buf, long len, int flags);

    static native long send(int fd, long buf, long len, int flags);

    static native long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen);

    static native long sendto(int fd, long buf, long len, int flags, long addr, int addrlen);

    static native int setsockopt(int fd, int level, int name, long value, int len);

    static native int getsockopt(int fd, int level, int name, long value, long len);

    static native int shutdown(int fd, int how);

    static native int getsockname(int fd, long addr, long addrlen);

    static native int getpeername(int fd, long addr, long addrlen);

    static native String strerror(int errnum);

    /** @return the native address of a direct buffer (allocates a JNA pointer: not for hot paths) */
    static long addressOf(java.nio.ByteBuffer direct) {
        return com.sun.jna.Pointer.nativeValue(Native.getDirectBufferPointer(direct));
    }
}

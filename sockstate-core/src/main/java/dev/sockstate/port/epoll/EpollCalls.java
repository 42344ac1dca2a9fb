package dev.sockstate.port.epoll;

import java.nio.ByteBuffer;

/**
 * The libc calls the epoll backend makes, as an instance its backend chooses ({@link BindingChoice})
 * and hands to its port and sockets: a binding (JNA's in {@link LinuxNative}, FFM's on Java 22 and
 * later) is one class implementing this. Pointers are {@code long} addresses, {@code size_t} and
 * {@code ssize_t} are {@code long} (64-bit Linux only); results are the C functions' own, and the
 * thread's errno after a failure is {@link #errno()}. Every call allocates nothing, but
 * {@link #strerror} and {@link #addressOf}.
 */
interface EpollCalls {

    /** @return the binding's name and version, for the backend's description, such as {@code JNA 5.19.1} */
    String binding();

    /**
     * @return errno of this thread's last native call; read right after the call that failed, with
     * nothing between that could block: JNA keeps it per carrier thread, and a virtual thread that left
     * its carrier in between would read another's
     */
    int errno();

    /** @return {@code epoll_create1(flags)}: a descriptor, or -1 */
    int epoll_create1(int flags);

    /** @return {@code epoll_ctl(epfd, op, fd, event)}: 0, or -1 */
    int epoll_ctl(int epfd, int op, int fd, long event);

    /** @return {@code epoll_wait(epfd, events, maxEvents, timeout)}: the entries filled, or -1 */
    int epoll_wait(int epfd, long events, int maxEvents, int timeout);

    /** @return {@code eventfd(initval, flags)}: a descriptor, or -1 */
    int eventfd(int initval, int flags);

    /** @return {@code read(fd, buf, count)}: the bytes read, or -1 */
    long read(int fd, long buf, long count);

    /** @return {@code write(fd, buf, count)}: the bytes written, or -1 */
    long write(int fd, long buf, long count);

    /** @return {@code close(fd)}: 0, or -1 */
    int close(int fd);

    /** @return {@code socket(domain, type, protocol)}: a descriptor, or -1 */
    int socket(int domain, int type, int protocol);

    /** @return {@code bind(fd, addr, addrlen)}: 0, or -1 */
    int bind(int fd, long addr, int addrlen);

    /** @return {@code listen(fd, backlog)}: 0, or -1 */
    int listen(int fd, int backlog);

    /** @return {@code accept4(fd, addr, addrlen, flags)}: a descriptor, or -1 */
    int accept4(int fd, long addr, long addrlen, int flags);

    /** @return {@code connect(fd, addr, addrlen)}: 0, or -1 */
    int connect(int fd, long addr, int addrlen);

    /** @return {@code recv(fd, buf, len, flags)}: the bytes read, or -1 */
    long recv(int fd, long buf, long len, int flags);

    /** @return {@code send(fd, buf, len, flags)}: the bytes sent, or -1 */
    long send(int fd, long buf, long len, int flags);

    /** @return {@code recvfrom(fd, buf, len, flags, addr, addrlen)}: the datagram's length, or -1 */
    long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen);

    /** @return {@code sendto(fd, buf, len, flags, addr, addrlen)}: the bytes sent, or -1 */
    long sendto(int fd, long buf, long len, int flags, long addr, int addrlen);

    /** @return {@code recvmmsg(fd, msgvec, vlen, flags, timeout)}: the messages received, or -1 */
    int recvmmsg(int fd, long msgvec, int vlen, int flags, long timeout);

    /** @return {@code sendmmsg(fd, msgvec, vlen, flags)}: the messages sent, or -1 */
    int sendmmsg(int fd, long msgvec, int vlen, int flags);

    /** @return {@code setsockopt(fd, level, name, value, len)}: 0, or -1 */
    int setsockopt(int fd, int level, int name, long value, int len);

    /** @return {@code getsockopt(fd, level, name, value, len)}: 0, or -1 */
    int getsockopt(int fd, int level, int name, long value, long len);

    /** @return {@code shutdown(fd, how)}: 0, or -1 */
    int shutdown(int fd, int how);

    /** @return {@code getsockname(fd, addr, addrlen)}: 0, or -1 */
    int getsockname(int fd, long addr, long addrlen);

    /** @return {@code getpeername(fd, addr, addrlen)}: 0, or -1 */
    int getpeername(int fd, long addr, long addrlen);

    /** @return the C library's text for an errno (allocates: not for hot paths) */
    String strerror(int errnum);

    /** @return the native address of a direct buffer's index 0, whatever its position (may allocate: not for hot paths) */
    long addressOf(ByteBuffer direct);
}

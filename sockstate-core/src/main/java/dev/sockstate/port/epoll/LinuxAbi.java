package dev.sockstate.port.epoll;

/**
 * The numbers of the Linux ABI the epoll backend uses, whatever binds libc: flags, socket options,
 * {@code struct epoll_event}'s layout. Plain constants, so reading them loads no native binding
 * (the layout is told by {@code os.arch}, not by JNA, which an FFM binding does without).
 */
final class LinuxAbi {

    static final int AF_UNIX = 1;
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
    static final int SO_LINGER = 13;
    static final int SO_REUSEPORT = 15;
    static final int SO_PEERCRED = 17;
    static final int SO_RXQ_OVFL = 40;
    static final int SOL_UDP = 17;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int TCP_KEEPIDLE = 4;
    static final int TCP_KEEPINTVL = 5;
    static final int TCP_KEEPCNT = 6;
    static final int TCP_USER_TIMEOUT = 18;
    static final int TCP_FASTOPEN = 23;
    static final int TCP_NOTSENT_LOWAT = 25;
    static final int IPPROTO_IP = 0;
    static final int IP_TOS = 1;
    static final int ENOPROTOOPT = 92;
    static final int IPPROTO_IPV6 = 41;
    static final int IPV6_V6ONLY = 26;
    static final int IPV6_TCLASS = 67;
    static final int IP_MULTICAST_ALL = 49;
    static final int IPV6_MULTICAST_ALL = 29;
    static final int IP_MULTICAST_IF = 32;
    static final int IP_MULTICAST_TTL = 33;
    static final int IP_MULTICAST_LOOP = 34;
    static final int IPV6_MULTICAST_IF = 17;
    static final int IPV6_MULTICAST_HOPS = 18;
    static final int IPV6_MULTICAST_LOOP = 19;
    static final int MCAST_JOIN_GROUP = 42;
    static final int MCAST_LEAVE_GROUP = 45;
    static final int MCAST_JOIN_SOURCE_GROUP = 46;
    static final int MCAST_LEAVE_SOURCE_GROUP = 47;

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

    /** Whether this is x86-64, where {@code struct epoll_event} is packed. */
    private static final boolean X86_64 = isX86_64(System.getProperty("os.arch", ""));

    /** {@code struct epoll_event} is packed on x86-64 (12 bytes, data at 4), naturally aligned elsewhere. */
    static final int EPOLL_EVENT_SIZE = X86_64 ? 12 : 16;
    static final int EPOLL_EVENT_DATA_OFFSET = X86_64 ? 4 : 8;

    private LinuxAbi() {
    }

    /** @return whether an {@code os.arch} value names x86-64 ({@code amd64} on HotSpot, {@code x86_64} elsewhere) */
    static boolean isX86_64(String arch) {
        return "amd64".equals(arch) || "x86_64".equals(arch) || "x86-64".equals(arch);
    }
}

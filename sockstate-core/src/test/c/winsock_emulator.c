/*
 * winsock_emulator.c: the Winsock and I/O completion port functions the winsock backend calls,
 * emulated on Linux over epoll, so that the backend runs its tests where there is no Windows.
 * Test code only: it never ships.
 *
 * Every function has its Windows name and Windows ABI types (SOCKET = UINT_PTR, HANDLE, DWORD...),
 * takes Windows constants (AF_INET6 23, SOL_SOCKET 0xffff, FIONBIO...) and reports WSAE* and
 * Win32 codes. A failed call stores its code both where WSAGetLastError/GetLastError read it and in
 * errno, because JNA captures errno after every call as "the last error" on Linux, as it captures
 * GetLastError() on Windows.
 *
 * MODES
 * - strict, the default: Windows as Microsoft documents it. The documentation is the socket state
 *   notifications page and the ABI notes kept in ../shared/reference/ (winsock-socket-state-
 *   notifications.md, winsock-abi.md); each rule below is applied next to a comment saying which
 *   of their statements it follows. Where the documentation only allows a behaviour ("might",
 *   "may"), strict mode does the allowed thing least convenient to the caller, every time, so that
 *   code tested here copes with it on Windows.
 * - lenient: the emulator's first, epoll-like semantics, kept to compare against: edges armed with
 *   EPOLLET (an edge for readiness that already held, and one per arrival of data), a level-
 *   triggered packet checked against the socket when dequeued (a condition gone meanwhile is not
 *   delivered), REMOVE replacing the events still queued, Linux's binding rules, and SO_ERROR as
 *   the kernel keeps it.
 * The mode is read from the environment variable SOCKSTATE_WINSOCK_EMULATOR ("lenient", anything
 * else or unset is strict) when the library loads, and changed with emu_set_mode(). A completion
 * port keeps the mode in force when it was created, and so does a socket: a change affects the
 * ports and sockets created after it.
 *
 * STRICT RULES (each is marked Rn where it is applied)
 * R1 An edge-triggered registration notifies a condition (IN, OUT, HANGUP, ERR) that rises while
 *    it is enabled, never one that already held when it was enabled; and a condition rises again
 *    only after it fell, which is seen only when a call returns WSAEWOULDBLOCK (recv, recvfrom,
 *    WSARecvMsg, accept for IN; send, sendto, WSASendMsg for OUT) or fails (ERR). Data arriving while earlier data is
 *    unread is no new edge.
 * R2 Completion packets are delivered as they were queued: a level-triggered IN or OUT is not
 *    checked again when dequeued, so it may be stale.
 * R3 DISABLE and closesocket leave an already-queued packet in the queue, delivered as queued.
 * R4 REMOVE joins the registration's packet when one is queued (IN|REMOVE in one entry, at the
 *    queued packet's place); else it is queued as a packet of its own. Nothing follows it.
 * R5 Once an ERR notification was delivered for a socket, getsockopt(SO_ERROR) reads 0; the error
 *    stays for recv to report.
 * R6 A connect that fails gives ERR without OUT.
 * R7 Binding follows Windows' rules for SO_REUSEADDR and SO_EXCLUSIVEADDRUSE (see bind()).
 * R8 An ENABLE with an empty filter, which has no documented meaning, is refused with
 *    ERROR_INVALID_PARAMETER (DISABLE is the documented way to watch nothing).
 * R9 AF_UNIX (1, afunix.h; Windows 10 build 17063 and later): stream sockets only, protocol 0
 *    (Microsoft's "AF_UNIX comes to Windows" announcement: no SOCK_DGRAM); another type is
 *    refused with WSAESOCKTNOSUPPORT. A path is no port: R7 does not apply, and the kernel is not
 *    asked to share ports for it. The reference notes in ../shared/reference/ do not cover AF_UNIX:
 *    this rule follows Microsoft's afunix.h and announcement, not those notes.
 * R10 UDP segmentation and receive coalescing, which Windows 10 version 2004 (build 19041) and later
 *    have (Microsoft's "IPPROTO_UDP socket options" page and ws2ipdef.h, not the notes in
 *    ../shared/reference/): UDP_SEND_MSG_SIZE (2) and UDP_RECV_MAX_COALESCED_SIZE (3) at IPPROTO_UDP,
 *    DWORDs. A segment size set on a socket, or given with one WSASendMsg call as a control message
 *    of that type, cuts what is sent into datagrams of that size, the last perhaps shorter. A non-zero
 *    UDP_RECV_MAX_COALESCED_SIZE lets datagrams of one sender, all of one size but the last, arrive as
 *    one message of at most that many bytes; only a receive with control data reports their size (a
 *    UDP_COALESCED_INFO (3) control message, a DWORD): WSARecvMsg, which ws2_32 does not export and
 *    WSAIoctl(SIO_GET_EXTENSION_FUNCTION_POINTER, WSAID_WSARECVMSG) hands out. Mapped onto Linux's
 *    UDP_SEGMENT and UDP_GRO (which coalesces up to 64 KB whatever non-zero size was set; the size is
 *    kept and read back). emu_set_udp_offload(0) makes an older build: both options fail with
 *    WSAENOPROTOOPT, and a WSASendMsg asking to segment with WSAEINVAL.
 * And a strict level-triggered registration's conditions that hold when it is enabled are queued by
 * the enabling call itself, so that tests know what is queued without waiting.
 * In both modes: one queued packet per registration, events coalescing into it; ONESHOT disables
 * (does not remove) after one notification; ERR whatever the filter says; posted packets share the
 * queue; closing the port wakes its waiters with ERROR_ABANDONED_WAIT_0; a timeout is WAIT_TIMEOUT.
 *
 * TEST HOOKS, exported for test code only (named emu_*, never called by the backend):
 * - int emu_set_mode(int mode): 0 strict, 1 lenient; returns the previous mode, -1 for another value.
 * - int emu_mode(void): the mode in force.
 * - int emu_fail_next_sends(SOCKET s, int count, int wsaError): the next count calls of send or
 *   sendto on s (on any socket when s is INVALID_SOCKET) fail with wsaError (WSAENOBUFS, say),
 *   sending nothing; count 0 cancels. Such a failure is not taken as OUT falling (R1): no edge
 *   follows it. Returns 0, or -1 for a bad argument.
 * - int emu_fail_sends_for(SOCKET s, int millis, int wsaError): every send or sendto on s fails
 *   with wsaError for the next millis milliseconds, sending nothing, as in a shortage that lasts a
 *   while; 0 cancels. Returns 0, or -1 for an unknown socket or a bad argument.
 * - int emu_reject_next_batch(HANDLE port, int count, DWORD code): the next count calls of
 *   ProcessSocketNotifications that carry registrations, on port (on any port when NULL), fail
 *   whole with code: nothing applied, nothing dequeued. The page's sample names the documented
 *   causes: transient memory conditions (ERROR_NOT_ENOUGH_MEMORY) and invalid input such as a bad
 *   handle (ERROR_INVALID_HANDLE, ERROR_INVALID_PARAMETER). Returns 0, or -1 for a bad argument
 *   (code 0 or a timeout code).
 * - int emu_reject_batches_with(SOCKET s, DWORD code): every call of ProcessSocketNotifications
 *   with a registration of s fails whole with code, until called again with code 0. Returns 0, or
 *   -1 for a bad argument or when too many sockets are named.
 * - int emu_set_udp_offload(int on): 0 makes the emulator a Windows build without R10's options, 1
 *   (the default) one with them; returns the previous setting, -1 for another value.
 * - void emu_reset(void): cancels every hook and restores the mode read from the environment.
 *
 * Readiness comes from one epoll instance per port, read by a pump thread that queues packets as
 * the kernel reports them, like the Windows kernel completes a socket's notification. Inside epoll,
 * level-triggered registrations are always one-shot: a persistent one is armed again when its
 * packet has been dequeued, so a socket that stays readable notifies again and never floods the
 * queue. Strict edge-triggered ones watch, level-triggered and one-shot, only the conditions that
 * are low (R1); lenient ones use EPOLLET, one-shot or not as asked.
 *
 * One mutex guards every port, registration, socket and hook: simplicity over throughput, it is a
 * test double.
 */
#define _GNU_SOURCE

/* The emulator exports functions named like libc's socket calls but with Windows signatures; hide
 * libc's prototypes, and reach the kernel with syscall() so that no call resolves to these exports. */
#define bind linux_bind
#define listen linux_listen
#define accept linux_accept
#define connect linux_connect
#define recv linux_recv
#define send linux_send
#define recvfrom linux_recvfrom
#define sendto linux_sendto
#define setsockopt linux_setsockopt
#define getsockopt linux_getsockopt
#define shutdown linux_shutdown
#define getsockname linux_getsockname
#define getpeername linux_getpeername
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#undef bind
#undef listen
#undef accept
#undef connect
#undef recv
#undef send
#undef recvfrom
#undef sendto
#undef setsockopt
#undef getsockopt
#undef shutdown
#undef getsockname
#undef getpeername

#define EXPORT __attribute__((visibility("default")))

/* ---- Windows types and constants ------------------------------------------------------------ */

typedef uintptr_t SOCKET;
typedef uintptr_t ULONG_PTR;
typedef void *HANDLE;
typedef uint32_t DWORD;
typedef uint32_t ULONG;
typedef uint32_t UINT32;
typedef uint16_t UINT16;
typedef uint16_t WORD;
typedef uint8_t UINT8;
typedef int BOOL;

typedef struct SOCK_NOTIFY_REGISTRATION {
    SOCKET socket;
    void *completionKey;
    UINT16 eventFilter;
    UINT8 operation;
    UINT8 triggerFlags;
    DWORD registrationResult;
} SOCK_NOTIFY_REGISTRATION;

typedef struct OVERLAPPED_ENTRY {
    ULONG_PTR lpCompletionKey;
    void *lpOverlapped;
    ULONG_PTR Internal;
    DWORD dwNumberOfBytesTransferred;
} OVERLAPPED_ENTRY;

_Static_assert(sizeof(SOCK_NOTIFY_REGISTRATION) == 24, "SOCK_NOTIFY_REGISTRATION is 24 bytes on x64");
_Static_assert(offsetof(SOCK_NOTIFY_REGISTRATION, registrationResult) == 20, "registrationResult at 20");
_Static_assert(sizeof(OVERLAPPED_ENTRY) == 32, "OVERLAPPED_ENTRY is 32 bytes on x64");
_Static_assert(offsetof(OVERLAPPED_ENTRY, dwNumberOfBytesTransferred) == 24, "dwNumberOfBytesTransferred at 24");

#define INVALID_SOCKET ((SOCKET) ~(uintptr_t) 0)
#define SOCKET_ERROR (-1)
#define INVALID_HANDLE_VALUE ((HANDLE) (intptr_t) -1)
#define INFINITE 0xFFFFFFFFu

#define WIN_AF_INET6 23
#define WIN_SOL_SOCKET 0xffff
#define WIN_SO_REUSEADDR 0x0004
/* winsock2.h: #define SO_EXCLUSIVEADDRUSE ((int) (~SO_REUSEADDR)) */
#define WIN_SO_EXCLUSIVEADDRUSE ((int) (~WIN_SO_REUSEADDR))
#define WIN_SO_KEEPALIVE 0x0008
/* winsock2.h: SO_LINGER takes a struct linger of two u_shorts, l_onoff and l_linger. */
#define WIN_SO_LINGER 0x0080
#define WIN_SO_SNDBUF 0x1001
#define WIN_SO_RCVBUF 0x1002
#define WIN_SO_ERROR 0x1007
#define WIN_SO_TYPE 0x1008
#define WIN_IPV6_V6ONLY 27
/* ws2ipdef.h: TCP_KEEPIDLE (its TCP_KEEPALIVE), TCP_KEEPCNT and TCP_KEEPINTVL, at IPPROTO_TCP. */
#define WIN_TCP_KEEPIDLE 3
#define WIN_TCP_KEEPCNT 16
#define WIN_TCP_KEEPINTVL 17
#define WIN_FIONBIO ((int32_t) 0x8004667E)
#define WIN_SIO_UDP_CONNRESET 0x9800000Cu
/* mswsock.h/ws2def.h: _WSAIORW(IOC_WS2, 6), and the GUID that asks it for WSARecvMsg. */
#define WIN_SIO_GET_EXTENSION_FUNCTION_POINTER 0xC8000006u
/* ws2ipdef.h (R10): options at IPPROTO_UDP (17, as on Linux), and a control message type. */
#define WIN_UDP_SEND_MSG_SIZE 2
#define WIN_UDP_RECV_MAX_COALESCED_SIZE 3
#define WIN_UDP_COALESCED_INFO 3
/* winsock2.h: WSAMSG's dwFlags on return. */
#define WIN_MSG_TRUNC 0x0100
#define WIN_MSG_CTRUNC 0x0200
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#define WSA_FLAG_NO_HANDLE_INHERIT 0x80

#define SOCK_NOTIFY_REGISTER_EVENT_ALL 0x07
#define SOCK_NOTIFY_EVENT_IN 0x01
#define SOCK_NOTIFY_EVENT_OUT 0x02
#define SOCK_NOTIFY_EVENT_HANGUP 0x04
#define SOCK_NOTIFY_EVENT_ERR 0x40
#define SOCK_NOTIFY_EVENT_REMOVE 0x80
#define SOCK_NOTIFY_OP_ENABLE 0x01
#define SOCK_NOTIFY_OP_DISABLE 0x02
#define SOCK_NOTIFY_OP_REMOVE 0x04
#define SOCK_NOTIFY_TRIGGER_ONESHOT 0x01
#define SOCK_NOTIFY_TRIGGER_PERSISTENT 0x02
#define SOCK_NOTIFY_TRIGGER_LEVEL 0x04
#define SOCK_NOTIFY_TRIGGER_EDGE 0x08

#define ERROR_SUCCESS 0
#define ERROR_INVALID_HANDLE 6
#define ERROR_NOT_ENOUGH_MEMORY 8
#define ERROR_INVALID_PARAMETER 87
#define WAIT_TIMEOUT 258
#define ERROR_ABANDONED_WAIT_0 735
#define ERROR_NOT_FOUND 1168
#define ERROR_TIMEOUT 1460

#define WSAEINTR 10004
#define WSAEACCES 10013
#define WSAEFAULT 10014
#define WSAEINVAL 10022
#define WSAEMFILE 10024
#define WSAEWOULDBLOCK 10035
#define WSAEINPROGRESS 10036
#define WSAEALREADY 10037
#define WSAENOTSOCK 10038
#define WSAEDESTADDRREQ 10039
#define WSAEMSGSIZE 10040
#define WSAEPROTOTYPE 10041
#define WSAENOPROTOOPT 10042
#define WSAEPROTONOSUPPORT 10043
#define WSAESOCKTNOSUPPORT 10044
#define WSAEOPNOTSUPP 10045
#define WSAEAFNOSUPPORT 10047
#define WSAEADDRINUSE 10048
#define WSAEADDRNOTAVAIL 10049
#define WSAENETDOWN 10050
#define WSAENETUNREACH 10051
#define WSAECONNABORTED 10053
#define WSAECONNRESET 10054
#define WSAENOBUFS 10055
#define WSAEISCONN 10056
#define WSAENOTCONN 10057
#define WSAESHUTDOWN 10058
#define WSAETIMEDOUT 10060
#define WSAECONNREFUSED 10061
#define WSAEHOSTUNREACH 10065

/* ---- last error ------------------------------------------------------------------------------ */

static __thread int last_error;

static void set_last_error(int code) {
    last_error = code;
    errno = code;
}

static int wsa_code(int linux_errno) {
    switch (linux_errno) {
    case EAGAIN: return WSAEWOULDBLOCK;
    case EINPROGRESS: return WSAEINPROGRESS;
    case EALREADY: return WSAEALREADY;
    case EBADF:
    case ENOTSOCK: return WSAENOTSOCK;
    case EINTR: return WSAEINTR;
    case EACCES:
    case EPERM: return WSAEACCES;
    case EFAULT: return WSAEFAULT;
    case EMFILE:
    case ENFILE: return WSAEMFILE;
    case EDESTADDRREQ: return WSAEDESTADDRREQ;
    case EMSGSIZE: return WSAEMSGSIZE;
    case EPROTOTYPE: return WSAEPROTOTYPE;
    case ENOPROTOOPT: return WSAENOPROTOOPT;
    case EPROTONOSUPPORT: return WSAEPROTONOSUPPORT;
    case EOPNOTSUPP: return WSAEOPNOTSUPP;
    case EAFNOSUPPORT: return WSAEAFNOSUPPORT;
    case EADDRINUSE: return WSAEADDRINUSE;
    case EADDRNOTAVAIL: return WSAEADDRNOTAVAIL;
    case ENETDOWN: return WSAENETDOWN;
    case ENETUNREACH: return WSAENETUNREACH;
    case ECONNABORTED: return WSAECONNABORTED;
    case ECONNRESET: return WSAECONNRESET;
    case ENOBUFS:
    case ENOMEM: return WSAENOBUFS;
    case EISCONN: return WSAEISCONN;
    case ENOTCONN: return WSAENOTCONN;
    case EPIPE:
    case ESHUTDOWN: return WSAESHUTDOWN;
    case ETIMEDOUT: return WSAETIMEDOUT;
    case ECONNREFUSED: return WSAECONNREFUSED;
    case EHOSTUNREACH: return WSAEHOSTUNREACH;
    default: return WSAEINVAL;
    }
}

/** Records errno, translated, as the last error; returns SOCKET_ERROR for the caller to return. */
static int socket_error(void) {
    set_last_error(wsa_code(errno));
    return SOCKET_ERROR;
}

EXPORT int WSAGetLastError(void) {
    return last_error;
}

EXPORT int WSAStartup(WORD version, void *data) {
    if (data == NULL) {
        return WSAEFAULT;
    }
    memcpy(data, &version, sizeof version);
    memcpy((char *) data + 2, &version, sizeof version);
    return 0;
}

/* ---- emulator state: the mode, the sockets' Windows state, the test hooks -------------------- */

#define EMU_STRICT 0
#define EMU_LENIENT 1

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/** The mode read from the environment when the library loaded. */
static int initial_mode = EMU_STRICT;

/** The mode new ports and sockets take. */
static int mode = EMU_STRICT;

__attribute__((constructor)) static void read_mode(void) {
    const char *configured = getenv("SOCKSTATE_WINSOCK_EMULATOR");
    initial_mode = (configured != NULL && strcmp(configured, "lenient") == 0) ? EMU_LENIENT : EMU_STRICT;
    mode = initial_mode;
}

/** What the emulator keeps about a socket it made, beyond the kernel's state. */
struct socket_state {
    int in_use;
    /** Made in strict mode: Windows' binding rules apply to it (R7), and a fresh one is ignored (R1). */
    int strict;
    int stream;
    /** A stream socket neither connecting, connected nor listening yet. */
    int fresh;
    /** SO_REUSEADDR and SO_EXCLUSIVEADDRUSE as the program set them. */
    int reuse_address;
    int exclusive;
    /** Where it is bound (Linux form), once bound. */
    int bound;
    int v6only;
    struct sockaddr_storage address;
    /** An ERR notification was delivered for it (R5). */
    int error_notified;
    /** A non-blocking connect is under way; it failed (R6). */
    int connecting;
    int connect_failed;
    /** emu_fail_next_sends: how many sends still fail, and with what. */
    int failing_sends;
    int failing_code;
    /** emu_fail_sends_for: until when (CLOCK_MONOTONIC, ns) sends fail, and with what. */
    long long failing_until;
    int failing_until_code;
    /** UDP_RECV_MAX_COALESCED_SIZE as the program set it (R10): Linux's UDP_GRO keeps a switch only. */
    DWORD max_coalesced;
};

static struct socket_state *socket_states;
static int socket_states_size;

static struct socket_state *state_of(int fd) {
    return (fd >= 0 && fd < socket_states_size && socket_states[fd].in_use) ? &socket_states[fd] : NULL;
}

/** A cleared state for a new socket, or NULL when out of memory; with the lock held. */
static struct socket_state *new_state(int fd) {
    if (fd >= socket_states_size) {
        int size = socket_states_size ? socket_states_size : 1024;
        while (size <= fd) {
            size *= 2;
        }
        struct socket_state *grown = realloc(socket_states, (size_t) size * sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        memset(grown + socket_states_size, 0, (size_t) (size - socket_states_size) * sizeof *grown);
        socket_states = grown;
        socket_states_size = size;
    }
    struct socket_state *state = &socket_states[fd];
    memset(state, 0, sizeof *state);
    state->in_use = 1;
    return state;
}

/** emu_reject_batches_with: sockets whose registration fails a whole call. */
#define MAX_REJECTED_SOCKETS 64
static struct {
    SOCKET socket;
    DWORD code;
} rejected_sockets[MAX_REJECTED_SOCKETS];
static int rejected_socket_count;

/** emu_reject_next_batch. */
static HANDLE rejected_port;
static int rejected_batches;
static DWORD rejected_batch_code;

/** emu_fail_next_sends on INVALID_SOCKET: any socket. */
static int any_failing_sends;
static int any_failing_code;

/** Set once a send hook was armed, so that sends take the lock only then. */
static int send_hooks_armed;

/** R10: whether the emulated build has UDP segmentation and receive coalescing (emu_set_udp_offload). */
static int udp_offload = 1;

/** A condition of a socket fell (R1); defined with the completion ports. */
static void condition_fell(int fd, DWORD events);

/** A fresh stream socket began to connect or listen; with the lock held. Defined with the completion ports. */
static void watch_from_now(int fd);

/** The monotonic clock, in nanoseconds. */
static long long monotonic_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long) now.tv_sec * 1000000000LL + now.tv_nsec;
}

/** Takes one failure armed by emu_fail_next_sends or emu_fail_sends_for for this socket; returns its code, or 0. */
static int injected_send_failure(int fd) {
    if (!__atomic_load_n(&send_hooks_armed, __ATOMIC_ACQUIRE)) {
        return 0;
    }
    int code = 0;
    pthread_mutex_lock(&lock);
    struct socket_state *state = state_of(fd);
    if (state != NULL && state->failing_sends > 0) {
        state->failing_sends--;
        code = state->failing_code;
    }
    else if (state != NULL && state->failing_until != 0 && monotonic_nanos() < state->failing_until) {
        code = state->failing_until_code;
    }
    else if (any_failing_sends > 0) {
        any_failing_sends--;
        code = any_failing_code;
    }
    pthread_mutex_unlock(&lock);
    return code;
}

/* ---- sockets ----------------------------------------------------------------------------------- */

static int fd_of(SOCKET s) {
    return (s > INT_MAX) ? -1 : (int) s;
}

static int is_socket(int fd) {
    int type = 0;
    socklen_t length = sizeof type;
    return fd >= 0 && syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0;
}

static int is_datagram(int fd) {
    int type = 0;
    socklen_t length = sizeof type;
    return syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_DGRAM;
}

static int linux_family(int family) {
    return (family == WIN_AF_INET6) ? AF_INET6 : family;
}

/** Copies a Windows sockaddr into Linux form. */
static int address_in(const void *name, int length, struct sockaddr_storage *out) {
    if (name == NULL || length < 2 || (size_t) length > sizeof *out) {
        return -1;
    }
    memcpy(out, name, (size_t) length);
    out->ss_family = (sa_family_t) linux_family(out->ss_family);
    return 0;
}

/** Rewrites a Linux sockaddr, written by the kernel, into Windows form. */
static void address_out(void *name) {
    if (name != NULL) {
        struct sockaddr *address = name;
        if (address->sa_family == AF_INET6) {
            address->sa_family = WIN_AF_INET6;
        }
    }
}

static int linux_flag(int fd, int level, int name, int value) {
    return (int) syscall(SYS_setsockopt, fd, level, name, &value, (socklen_t) sizeof value);
}

/**
 * R7: a strict socket lets the kernel share its port with every other strict socket (SO_REUSEPORT,
 * and SO_REUSEADDR for ports in TIME_WAIT), so that bind() alone decides with Windows' rules which
 * of them may share a port. Sockets the emulator did not make (the JDK's) share with none of them.
 */
static int share_ports(int fd) {
    return linux_flag(fd, SOL_SOCKET, SO_REUSEADDR, 1) | linux_flag(fd, SOL_SOCKET, SO_REUSEPORT, 1);
}

/** Records a socket the emulator made; closes it and returns -1 when that fails. */
static int track(int fd, int strict, int stream, int fresh, int has_port) {
    pthread_mutex_lock(&lock);
    struct socket_state *state = new_state(fd);
    int failed = state == NULL;
    if (!failed) {
        state->strict = strict;
        state->stream = stream;
        state->fresh = fresh;
        failed = strict && has_port && share_ports(fd) != 0;
        state->in_use = !failed;
    }
    pthread_mutex_unlock(&lock);
    if (failed) {
        close(fd);
        set_last_error(WSAENOBUFS);
    }
    return failed ? -1 : 0;
}

EXPORT SOCKET WSASocketW(int family, int type, int protocol, void *info, unsigned group, DWORD flags) {
    (void) info;
    (void) group;
    int cloexec = (flags & WSA_FLAG_NO_HANDLE_INHERIT) ? SOCK_CLOEXEC : 0;
    if (family == AF_UNIX && (type != SOCK_STREAM || protocol != 0)) {
        /* R9 */
        set_last_error(WSAESOCKTNOSUPPORT);
        return INVALID_SOCKET;
    }
    int fd = socket(linux_family(family), type | cloexec, protocol);
    if (fd < 0) {
        socket_error();
        return INVALID_SOCKET;
    }
    pthread_mutex_lock(&lock);
    int strict = mode == EMU_STRICT;
    pthread_mutex_unlock(&lock);
    return (track(fd, strict, type == SOCK_STREAM, type == SOCK_STREAM, family != AF_UNIX) != 0) ? INVALID_SOCKET : (SOCKET) fd;
}

/* winsock2.h's WSABUF and WSAMSG, and ws2def.h's WSACMSGHDR, on x64. */
typedef struct WSABUF {
    ULONG len;
    char *buf;
} WSABUF;

typedef struct WSAMSG {
    void *name;
    int namelen;
    WSABUF *lpBuffers;
    ULONG dwBufferCount;
    WSABUF Control;
    ULONG dwFlags;
} WSAMSG;

typedef struct WSACMSGHDR {
    size_t cmsg_len;
    int cmsg_level;
    int cmsg_type;
} WSACMSGHDR;

_Static_assert(sizeof(WSABUF) == 16, "WSABUF is 16 bytes on x64");
_Static_assert(sizeof(WSAMSG) == 56, "WSAMSG is 56 bytes on x64");
_Static_assert(offsetof(WSAMSG, lpBuffers) == 16 && offsetof(WSAMSG, dwBufferCount) == 24, "WSAMSG's buffers at 16 and 24");
_Static_assert(offsetof(WSAMSG, Control) == 32 && offsetof(WSAMSG, dwFlags) == 48, "WSAMSG's control at 32, flags at 48");
_Static_assert(sizeof(WSACMSGHDR) == 16, "WSACMSGHDR is 16 bytes on x64: its data at 16");

/** WSA_CMSG_LEN(sizeof(DWORD)) and WSA_CMSG_SPACE(sizeof(DWORD)) on x64. */
#define WIN_CMSG_DWORD_LEN 20
#define WIN_CMSG_DWORD_SPACE 24

/** The most WSABUFs one WSASendMsg or WSARecvMsg takes here. */
#define MAX_WSABUFS 16

/** WSAID_WSARECVMSG (mswsock.h): {F689D7C8-6F1F-436B-8A53-E54FE351C322}. */
static const unsigned char WSARECVMSG_GUID[16] = {
    0xc8, 0xd7, 0x89, 0xf6, 0x1f, 0x6f, 0x6b, 0x43, 0x8a, 0x53, 0xe5, 0x4f, 0xe3, 0x51, 0xc3, 0x22
};

static int WSARecvMsg(SOCKET s, WSAMSG *message, DWORD *received, void *overlapped, void *routine);

EXPORT int WSAIoctl(SOCKET s, DWORD code, void *in, DWORD in_length, void *out, DWORD out_length,
        DWORD *returned, void *overlapped, void *routine) {
    if (!is_socket(fd_of(s))) {
        set_last_error(WSAENOTSOCK);
        return SOCKET_ERROR;
    }
    if (overlapped != NULL || routine != NULL) {
        set_last_error(WSAEINVAL);
        return SOCKET_ERROR;
    }
    if (code == WIN_SIO_GET_EXTENSION_FUNCTION_POINTER) {
        /* Only WSARecvMsg's pointer is asked for here; another GUID is one this emulator does not serve. */
        if (in == NULL || in_length != sizeof WSARECVMSG_GUID || memcmp(in, WSARECVMSG_GUID, sizeof WSARECVMSG_GUID) != 0
                || out == NULL || out_length < sizeof(void *)) {
            set_last_error(WSAEINVAL);
            return SOCKET_ERROR;
        }
        int (*function)(SOCKET, WSAMSG *, DWORD *, void *, void *) = WSARecvMsg;
        memcpy(out, &function, sizeof function);
        if (returned != NULL) {
            *returned = (DWORD) sizeof function;
        }
        return 0;
    }
    if (code != WIN_SIO_UDP_CONNRESET) {
        set_last_error(WSAEINVAL);
        return SOCKET_ERROR;
    }
    /* Linux reports no ICMP errors on unconnected UDP sockets: nothing to switch off. */
    if (returned != NULL) {
        *returned = 0;
    }
    return 0;
}

EXPORT int ioctlsocket(SOCKET s, int32_t command, uint32_t *argument) {
    int fd = fd_of(s);
    if (command != WIN_FIONBIO || argument == NULL) {
        set_last_error(WSAEINVAL);
        return SOCKET_ERROR;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        return socket_error();
    }
    flags = *argument ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    return (fcntl(fd, F_SETFL, flags) < 0) ? socket_error() : 0;
}

/** The local addresses a bound address takes: a dual-stack IPv6 wildcard takes IPv4's as well. */
struct endpoint {
    int family;
    unsigned char address[16];
    int wildcard;
};

static int port_of(const struct sockaddr_storage *address) {
    /* sin_port and sin6_port are at the same offset. */
    return ntohs(((const struct sockaddr_in *) (const void *) address)->sin_port);
}

static int endpoints_of(const struct sockaddr_storage *address, int v6only, struct endpoint out[2]) {
    static const unsigned char any[16];
    memset(out, 0, 2 * sizeof *out);
    if (address->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *) address;
        out[0].family = AF_INET;
        memcpy(out[0].address, &in->sin_addr, 4);
        out[0].wildcard = memcmp(out[0].address, any, 4) == 0;
        return 1;
    }
    const struct sockaddr_in6 *in6 = (const void *) address;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
        out[0].family = AF_INET;
        memcpy(out[0].address, &in6->sin6_addr.s6_addr[12], 4);
        out[0].wildcard = memcmp(out[0].address, any, 4) == 0;
        return 1;
    }
    out[0].family = AF_INET6;
    memcpy(out[0].address, in6->sin6_addr.s6_addr, 16);
    out[0].wildcard = memcmp(out[0].address, any, 16) == 0;
    if (out[0].wildcard && !v6only) {
        out[1].family = AF_INET;
        out[1].wildcard = 1;
        return 2;
    }
    return 1;
}

#define SAME_ADDRESS 2
#define WILDCARD_OVERLAP 1

/** How two bound addresses share a port: not at all, one's wildcard covering the other, or the same. */
static int overlap(const struct endpoint *a, int a_count, const struct endpoint *b, int b_count) {
    int shared = 0;
    for (int i = 0; i < a_count; i++) {
        for (int j = 0; j < b_count; j++) {
            if (a[i].family != b[j].family) {
                continue;
            }
            if (memcmp(a[i].address, b[j].address, sizeof a[i].address) == 0) {
                return SAME_ADDRESS;
            }
            if (a[i].wildcard || b[j].wildcard) {
                shared = WILDCARD_OVERLAP;
            }
        }
    }
    return shared;
}

static int v6only_of(int fd, int family) {
    int value = 0;
    socklen_t length = sizeof value;
    return family == AF_INET6 && syscall(SYS_getsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, &value, &length) == 0 && value;
}

/**
 * R7, Windows' binding rules (Microsoft's page "Using SO_REUSEADDR and SO_EXCLUSIVEADDRUSE"; they
 * are not part of the notifications reference): a socket may bind the address and port another
 * socket of the same protocol is bound to, even one listening, when both set SO_REUSEADDR; a
 * wildcard address and a specific one may share a port without options; and a socket with
 * SO_EXCLUSIVEADDRUSE shares its port with nobody, nor binds one in use: WSAEADDRINUSE. With the
 * lock held; returns the WSAE* code refusing the bind, or 0.
 */
static int windows_bind_refusal(int fd, const struct socket_state *state, const struct sockaddr_storage *address) {
    if (address->ss_family == AF_UNIX) {
        /* R9 */
        return 0;
    }
    int port = port_of(address);
    if (port == 0) {
        return 0;
    }
    struct endpoint mine[2];
    int mine_count = endpoints_of(address, v6only_of(fd, address->ss_family), mine);
    for (int other = 0; other < socket_states_size; other++) {
        const struct socket_state *bound = &socket_states[other];
        if (other == fd || !bound->in_use || !bound->bound || bound->stream != state->stream
                || port_of(&bound->address) != port) {
            continue;
        }
        struct endpoint theirs[2];
        int shared = overlap(mine, mine_count, theirs, endpoints_of(&bound->address, bound->v6only, theirs));
        if (shared == 0) {
            continue;
        }
        if (bound->exclusive || state->exclusive
                || (shared == SAME_ADDRESS && !(bound->reuse_address && state->reuse_address))) {
            return WSAEADDRINUSE;
        }
    }
    return 0;
}

EXPORT int bind(SOCKET s, const void *name, int length) {
    struct sockaddr_storage address;
    if (address_in(name, length, &address) != 0) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    int fd = fd_of(s);
    pthread_mutex_lock(&lock);
    struct socket_state *state = state_of(fd);
    int code = (state != NULL && state->strict) ? windows_bind_refusal(fd, state, &address) : 0;
    if (code == 0 && syscall(SYS_bind, fd, &address, length) != 0) {
        code = wsa_code(errno);
    }
    if (code == 0 && state != NULL) {
        socklen_t bound_length = sizeof state->address;
        if (syscall(SYS_getsockname, fd, &state->address, &bound_length) == 0) {
            state->bound = 1;
            state->v6only = v6only_of(fd, state->address.ss_family);
        }
    }
    pthread_mutex_unlock(&lock);
    if (code != 0) {
        set_last_error(code);
        return SOCKET_ERROR;
    }
    return 0;
}

/** Marks a stream socket as no longer fresh: it listens or connects. */
static void leave_fresh(int fd, int connecting) {
    pthread_mutex_lock(&lock);
    struct socket_state *state = state_of(fd);
    if (state != NULL) {
        int was_fresh = state->fresh;
        state->fresh = 0;
        state->connecting = connecting;
        if (was_fresh) {
            watch_from_now(fd);
        }
    }
    pthread_mutex_unlock(&lock);
}

EXPORT int listen(SOCKET s, int backlog) {
    if (syscall(SYS_listen, fd_of(s), backlog) != 0) {
        return socket_error();
    }
    leave_fresh(fd_of(s), 0);
    return 0;
}

EXPORT SOCKET accept(SOCKET s, void *name, int *length) {
    int listener = fd_of(s);
    int fd = (int) syscall(SYS_accept4, listener, name, length, SOCK_CLOEXEC);
    if (fd < 0) {
        int error = errno;
        if (error == EAGAIN) {
            condition_fell(listener, SOCK_NOTIFY_EVENT_IN);
        }
        errno = error;
        socket_error();
        return INVALID_SOCKET;
    }
    pthread_mutex_lock(&lock);
    const struct socket_state *state = state_of(listener);
    int strict = (state != NULL) ? state->strict : mode == EMU_STRICT;
    int has_port = state == NULL || !state->bound || state->address.ss_family != AF_UNIX;
    pthread_mutex_unlock(&lock);
    if (track(fd, strict, 1, 0, has_port) != 0) {
        return INVALID_SOCKET;
    }
    address_out(name);
    return (SOCKET) fd;
}

EXPORT int connect(SOCKET s, const void *name, int length) {
    struct sockaddr_storage address;
    if (address_in(name, length, &address) != 0) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    int fd = fd_of(s);
    if (syscall(SYS_connect, fd, &address, length) == 0) {
        leave_fresh(fd, 0);
        return 0;
    }
    int error = errno;
    leave_fresh(fd, error == EINPROGRESS);
    /* A non-blocking connect under way is WSAEWOULDBLOCK on Windows, not WSAEINPROGRESS. */
    set_last_error((error == EINPROGRESS) ? WSAEWOULDBLOCK : wsa_code(error));
    return SOCKET_ERROR;
}

/**
 * Records a failed transfer, for R1: WSAEWOULDBLOCK means the condition fell (IN after a receive,
 * OUT after a send); another error was the socket's error, taken by this call (ERR fell).
 */
static int transfer_error(int fd, DWORD direction) {
    int error = errno;
    condition_fell(fd, (error == EAGAIN) ? direction : SOCK_NOTIFY_EVENT_ERR);
    errno = error;
    return socket_error();
}

EXPORT int recv(SOCKET s, char *buffer, int length, int flags) {
    long read = syscall(SYS_recvfrom, fd_of(s), buffer, (size_t) length, flags, NULL, NULL);
    return (read < 0) ? transfer_error(fd_of(s), SOCK_NOTIFY_EVENT_IN) : (int) read;
}

/** A failure armed by emu_fail_next_sends: nothing is sent, and no condition is taken to have fallen. */
static int injected_failure(int code) {
    set_last_error(code);
    return SOCKET_ERROR;
}

EXPORT int send(SOCKET s, const char *buffer, int length, int flags) {
    int injected = injected_send_failure(fd_of(s));
    if (injected != 0) {
        return injected_failure(injected);
    }
    long sent = syscall(SYS_sendto, fd_of(s), buffer, (size_t) length, flags | MSG_NOSIGNAL, NULL, 0);
    return (sent < 0) ? transfer_error(fd_of(s), SOCK_NOTIFY_EVENT_OUT) : (int) sent;
}

/** As on Windows, a datagram longer than the buffer fills it and fails with WSAEMSGSIZE. */
EXPORT int recvfrom(SOCKET s, char *buffer, int length, int flags, void *from, int *from_length) {
    int fd = fd_of(s);
    int truncate = is_datagram(fd) ? MSG_TRUNC : 0;
    long read = syscall(SYS_recvfrom, fd, buffer, (size_t) length, flags | truncate, from, from_length);
    if (read < 0) {
        return transfer_error(fd, SOCK_NOTIFY_EVENT_IN);
    }
    address_out(from);
    if (read > length) {
        set_last_error(WSAEMSGSIZE);
        return SOCKET_ERROR;
    }
    return (int) read;
}

EXPORT int sendto(SOCKET s, const char *buffer, int length, int flags, const void *to, int to_length) {
    struct sockaddr_storage address;
    if (address_in(to, to_length, &address) != 0) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    int injected = injected_send_failure(fd_of(s));
    if (injected != 0) {
        return injected_failure(injected);
    }
    long sent = syscall(SYS_sendto, fd_of(s), buffer, (size_t) length, flags | MSG_NOSIGNAL, &address, to_length);
    return (sent < 0) ? transfer_error(fd_of(s), SOCK_NOTIFY_EVENT_OUT) : (int) sent;
}

/**
 * Checks a synchronous WSASendMsg or WSARecvMsg on a datagram socket (no overlapped form here, no flags)
 * and copies its WSAMSG's buffers into iovecs; returns their count, or -1 with the error set.
 */
static int iovecs_of(int fd, const WSAMSG *message, int refused, struct iovec out[MAX_WSABUFS]) {
    if (message == NULL) {
        set_last_error(WSAEFAULT);
        return -1;
    }
    if (refused || !is_datagram(fd)) {
        set_last_error(is_socket(fd) ? WSAEINVAL : WSAENOTSOCK);
        return -1;
    }
    if (message->dwBufferCount > MAX_WSABUFS || (message->dwBufferCount > 0 && message->lpBuffers == NULL)) {
        set_last_error(message->dwBufferCount > MAX_WSABUFS ? WSAEINVAL : WSAEFAULT);
        return -1;
    }
    for (ULONG i = 0; i < message->dwBufferCount; i++) {
        out[i].iov_base = message->lpBuffers[i].buf;
        out[i].iov_len = message->lpBuffers[i].len;
    }
    return (int) message->dwBufferCount;
}

/**
 * WSASendMsg, synchronously (no overlapped form here): a datagram from a WSAMSG, whose control data
 * may carry R10's segment size (UDP_SEND_MSG_SIZE at IPPROTO_UDP, a DWORD), which Linux takes as a
 * UDP_SEGMENT control message (a u16). Any other control message is refused with WSAEINVAL.
 */
EXPORT int WSASendMsg(SOCKET s, WSAMSG *message, DWORD flags, DWORD *sent, void *overlapped, void *routine) {
    int fd = fd_of(s);
    struct iovec iov[MAX_WSABUFS];
    int iov_count = iovecs_of(fd, message, overlapped != NULL || routine != NULL || flags != 0, iov);
    if (iov_count < 0) {
        return SOCKET_ERROR;
    }
    struct sockaddr_storage address;
    struct msghdr header = { .msg_iov = iov, .msg_iovlen = (size_t) iov_count };
    if (message->name != NULL) {
        if (address_in(message->name, message->namelen, &address) != 0) {
            set_last_error(WSAEFAULT);
            return SOCKET_ERROR;
        }
        header.msg_name = &address;
        header.msg_namelen = (socklen_t) message->namelen;
    }
    union {
        char bytes[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } control;
    size_t offset = 0;
    size_t control_length = (message->Control.buf != NULL) ? message->Control.len : 0;
    while (offset < control_length) {
        WSACMSGHDR windows;
        if (offset + sizeof windows > control_length) {
            set_last_error(WSAEINVAL);
            return SOCKET_ERROR;
        }
        memcpy(&windows, message->Control.buf + offset, sizeof windows);
        if (windows.cmsg_len < sizeof windows || offset + windows.cmsg_len > control_length) {
            /* A malformed control message is refused, never sent as if it were absent. */
            set_last_error(WSAEINVAL);
            return SOCKET_ERROR;
        }
        DWORD size;
        if (windows.cmsg_level != IPPROTO_UDP || windows.cmsg_type != WIN_UDP_SEND_MSG_SIZE || windows.cmsg_len < WIN_CMSG_DWORD_LEN
                || !__atomic_load_n(&udp_offload, __ATOMIC_ACQUIRE) || header.msg_control != NULL) {
            set_last_error(WSAEINVAL);
            return SOCKET_ERROR;
        }
        memcpy(&size, message->Control.buf + offset + sizeof windows, sizeof size);
        if (size > 0xFFFF) {
            set_last_error(WSAEINVAL);
            return SOCKET_ERROR;
        }
        memset(&control, 0, sizeof control);
        header.msg_control = control.bytes;
        header.msg_controllen = sizeof control.bytes;
        struct cmsghdr *linux_message = CMSG_FIRSTHDR(&header);
        linux_message->cmsg_level = SOL_UDP;
        linux_message->cmsg_type = UDP_SEGMENT;
        linux_message->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        uint16_t segment = (uint16_t) size;
        memcpy(CMSG_DATA(linux_message), &segment, sizeof segment);
        offset += (windows.cmsg_len + 7) & ~(size_t) 7;
    }
    int injected = injected_send_failure(fd);
    if (injected != 0) {
        return injected_failure(injected);
    }
    long written = syscall(SYS_sendmsg, fd, &header, MSG_NOSIGNAL);
    if (written < 0) {
        return transfer_error(fd, SOCK_NOTIFY_EVENT_OUT);
    }
    if (sent != NULL) {
        *sent = (DWORD) written;
    }
    return 0;
}

/**
 * WSARecvMsg, synchronously: never exported (R10), reached through WSAIoctl's extension pointer. A
 * coalesced message's segment size (Linux's UDP_GRO control message) is written as UDP_COALESCED_INFO;
 * a datagram longer than the buffers fills them and fails with WSAEMSGSIZE, MSG_TRUNC set, as recvfrom.
 */
static int WSARecvMsg(SOCKET s, WSAMSG *message, DWORD *received, void *overlapped, void *routine) {
    int fd = fd_of(s);
    struct iovec iov[MAX_WSABUFS];
    int iov_count = iovecs_of(fd, message, overlapped != NULL || routine != NULL, iov);
    if (iov_count < 0) {
        return SOCKET_ERROR;
    }
    union {
        char bytes[CMSG_SPACE(sizeof(int)) * 4];
        struct cmsghdr align;
    } control;
    struct msghdr header = { .msg_iov = iov, .msg_iovlen = (size_t) iov_count, .msg_control = control.bytes,
            .msg_controllen = sizeof control.bytes };
    if (message->name != NULL) {
        header.msg_name = message->name;
        header.msg_namelen = (socklen_t) message->namelen;
    }
    long read = syscall(SYS_recvmsg, fd, &header, 0);
    if (read < 0) {
        return transfer_error(fd, SOCK_NOTIFY_EVENT_IN);
    }
    address_out(message->name);
    if (message->name != NULL) {
        message->namelen = (int) header.msg_namelen;
    }
    ULONG flags = 0;
    ULONG written = 0;
    for (struct cmsghdr *linux_message = CMSG_FIRSTHDR(&header); linux_message != NULL;
            linux_message = CMSG_NXTHDR(&header, linux_message)) {
        if (linux_message->cmsg_level != SOL_UDP || linux_message->cmsg_type != UDP_GRO) {
            continue;
        }
        int segment;
        memcpy(&segment, CMSG_DATA(linux_message), sizeof segment);
        if (message->Control.buf == NULL || message->Control.len < written + WIN_CMSG_DWORD_SPACE) {
            flags |= WIN_MSG_CTRUNC;
            continue;
        }
        WSACMSGHDR windows = { WIN_CMSG_DWORD_LEN, IPPROTO_UDP, WIN_UDP_COALESCED_INFO };
        DWORD size = (DWORD) segment;
        memset(message->Control.buf + written, 0, WIN_CMSG_DWORD_SPACE);
        memcpy(message->Control.buf + written, &windows, sizeof windows);
        memcpy(message->Control.buf + written + sizeof windows, &size, sizeof size);
        written += WIN_CMSG_DWORD_SPACE;
    }
    message->Control.len = written;
    if (header.msg_flags & MSG_TRUNC) {
        flags |= WIN_MSG_TRUNC;
    }
    message->dwFlags = flags;
    if (received != NULL) {
        *received = (DWORD) read;
    }
    if (flags & WIN_MSG_TRUNC) {
        set_last_error(WSAEMSGSIZE);
        return SOCKET_ERROR;
    }
    return 0;
}

/** Translates a Windows option level and name; returns -1 for an option Linux does not have. */
static int linux_option(int level, int name, int *linux_level, int *linux_name) {
    if (level == WIN_SOL_SOCKET) {
        *linux_level = SOL_SOCKET;
        switch (name) {
        case WIN_SO_REUSEADDR: *linux_name = SO_REUSEADDR; return 0;
        case WIN_SO_KEEPALIVE: *linux_name = SO_KEEPALIVE; return 0;
        case WIN_SO_SNDBUF: *linux_name = SO_SNDBUF; return 0;
        case WIN_SO_RCVBUF: *linux_name = SO_RCVBUF; return 0;
        case WIN_SO_ERROR: *linux_name = SO_ERROR; return 0;
        case WIN_SO_TYPE: *linux_name = SO_TYPE; return 0;
        default: return -1;
        }
    }
    if (level == IPPROTO_TCP) {
        *linux_level = IPPROTO_TCP;
        switch (name) {
        case TCP_NODELAY: *linux_name = TCP_NODELAY; return 0;
        case WIN_TCP_KEEPIDLE: *linux_name = TCP_KEEPIDLE; return 0;
        case WIN_TCP_KEEPCNT: *linux_name = TCP_KEEPCNT; return 0;
        case WIN_TCP_KEEPINTVL: *linux_name = TCP_KEEPINTVL; return 0;
        default: return -1;
        }
    }
    if (level == IPPROTO_IPV6 && name == WIN_IPV6_V6ONLY) {
        *linux_level = IPPROTO_IPV6;
        *linux_name = IPV6_V6ONLY;
        return 0;
    }
    return -1;
}

/**
 * SO_REUSEADDR and SO_EXCLUSIVEADDRUSE, kept by the emulator for bind() (R7). A strict socket's
 * SO_REUSEADDR is Windows' alone (the kernel's sharing was set up by share_ports()); a lenient
 * one's is Linux's, as before. Setting either while the other is set fails with WSAEINVAL (the
 * two exclude each other on Windows). SO_EXCLUSIVEADDRUSE is accepted in both modes: Linux never
 * shares a port without SO_REUSEPORT, which lenient sockets do not set.
 */
static int set_address_option(int fd, int name, const char *value, int length) {
    int enabled;
    if (value == NULL || length < (int) sizeof enabled) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    memcpy(&enabled, value, sizeof enabled);
    pthread_mutex_lock(&lock);
    struct socket_state *state = state_of(fd);
    int code = 0;
    if (state == NULL) {
        code = is_socket(fd) ? WSAEINVAL : WSAENOTSOCK;
    }
    else if (enabled && (name == WIN_SO_REUSEADDR ? state->exclusive : state->reuse_address)) {
        code = WSAEINVAL;
    }
    else if (name == WIN_SO_REUSEADDR && !state->strict && linux_flag(fd, SOL_SOCKET, SO_REUSEADDR, enabled != 0) != 0) {
        code = wsa_code(errno);
    }
    else if (name == WIN_SO_REUSEADDR) {
        state->reuse_address = enabled != 0;
    }
    else {
        state->exclusive = enabled != 0;
    }
    pthread_mutex_unlock(&lock);
    if (code != 0) {
        set_last_error(code);
        return SOCKET_ERROR;
    }
    return 0;
}

/** Windows' struct linger, two u_shorts. */
struct win_linger {
    UINT16 l_onoff;
    UINT16 l_linger;
};

/** SO_LINGER: Windows' struct linger of u_shorts made Linux's of ints. */
static int set_linger(int fd, const char *value, int length) {
    struct win_linger windows;
    if (value == NULL || length < (int) sizeof windows) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    memcpy(&windows, value, sizeof windows);
    struct linger linux_linger = { windows.l_onoff != 0, windows.l_linger };
    return (syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_LINGER, &linux_linger, sizeof linux_linger) != 0) ? socket_error() : 0;
}

/** SO_LINGER read back as Windows' struct linger. */
static int get_linger(int fd, char *value, int *length) {
    struct linger linux_linger;
    socklen_t linux_length = sizeof linux_linger;
    if (value == NULL || length == NULL || *length < (int) sizeof(struct win_linger)) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_LINGER, &linux_linger, &linux_length) != 0) {
        return socket_error();
    }
    struct win_linger windows = { (UINT16) (linux_linger.l_onoff != 0), (UINT16) linux_linger.l_linger };
    memcpy(value, &windows, sizeof windows);
    *length = (int) sizeof windows;
    return 0;
}

/** R10's options at IPPROTO_UDP: a segment size (Linux's UDP_SEGMENT), and the most bytes a coalesced receive holds (UDP_GRO on or off). */
static int is_udp_offload_option(int level, int name) {
    return level == IPPROTO_UDP && (name == WIN_UDP_SEND_MSG_SIZE || name == WIN_UDP_RECV_MAX_COALESCED_SIZE);
}

static int set_udp_offload_option(int fd, int name, const char *value, int length) {
    DWORD size;
    if (!__atomic_load_n(&udp_offload, __ATOMIC_ACQUIRE)) {
        set_last_error(WSAENOPROTOOPT);
        return SOCKET_ERROR;
    }
    if (value == NULL || length < (int) sizeof size) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    memcpy(&size, value, sizeof size);
    if (name == WIN_UDP_SEND_MSG_SIZE) {
        if (size > 0xFFFF) {
            set_last_error(WSAEINVAL);
            return SOCKET_ERROR;
        }
        return (linux_flag(fd, SOL_UDP, UDP_SEGMENT, (int) size) != 0) ? socket_error() : 0;
    }
    if (linux_flag(fd, SOL_UDP, UDP_GRO, size != 0) != 0) {
        return socket_error();
    }
    pthread_mutex_lock(&lock);
    struct socket_state *state = state_of(fd);
    if (state != NULL) {
        state->max_coalesced = size;
    }
    pthread_mutex_unlock(&lock);
    return 0;
}

static int get_udp_offload_option(int fd, int name, char *value, int *length) {
    if (!__atomic_load_n(&udp_offload, __ATOMIC_ACQUIRE)) {
        set_last_error(WSAENOPROTOOPT);
        return SOCKET_ERROR;
    }
    if (value == NULL || length == NULL || *length < (int) sizeof(DWORD)) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    DWORD size = 0;
    if (name == WIN_UDP_SEND_MSG_SIZE) {
        int segment = 0;
        socklen_t segment_length = sizeof segment;
        if (syscall(SYS_getsockopt, fd, SOL_UDP, UDP_SEGMENT, &segment, &segment_length) != 0) {
            return socket_error();
        }
        size = (DWORD) segment;
    }
    else {
        if (!is_datagram(fd)) {
            set_last_error(WSAENOPROTOOPT);
            return SOCKET_ERROR;
        }
        pthread_mutex_lock(&lock);
        const struct socket_state *state = state_of(fd);
        size = (state != NULL) ? state->max_coalesced : 0;
        pthread_mutex_unlock(&lock);
    }
    memcpy(value, &size, sizeof size);
    *length = (int) sizeof size;
    return 0;
}

EXPORT int setsockopt(SOCKET s, int level, int name, const char *value, int length) {
    if (is_udp_offload_option(level, name)) {
        return set_udp_offload_option(fd_of(s), name, value, length);
    }
    if (level == WIN_SOL_SOCKET && (name == WIN_SO_REUSEADDR || name == WIN_SO_EXCLUSIVEADDRUSE)) {
        return set_address_option(fd_of(s), name, value, length);
    }
    if (level == WIN_SOL_SOCKET && name == WIN_SO_LINGER) {
        return set_linger(fd_of(s), value, length);
    }
    int linux_level;
    int linux_name;
    if (linux_option(level, name, &linux_level, &linux_name) != 0) {
        set_last_error(WSAENOPROTOOPT);
        return SOCKET_ERROR;
    }
    return (syscall(SYS_setsockopt, fd_of(s), linux_level, linux_name, value, length) != 0) ? socket_error() : 0;
}

/** Answers getsockopt from the emulator's own state: returns 1 when it did, 0 to ask the kernel. */
static int emulated_option(int fd, int level, int name, char *value, int *length) {
    if (level != WIN_SOL_SOCKET || value == NULL || length == NULL || *length < (int) sizeof(int)) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    const struct socket_state *state = state_of(fd);
    int answered = 1;
    int result = 0;
    if (name == WIN_SO_EXCLUSIVEADDRUSE && (state != NULL || is_socket(fd))) {
        result = (state != NULL) ? state->exclusive : 0;
    }
    else if (state != NULL && state->strict && name == WIN_SO_REUSEADDR) {
        result = state->reuse_address;
    }
    else if (state != NULL && state->error_notified && name == WIN_SO_ERROR) {
        /*
         * R5: the page's samples never read SO_ERROR after an ERR notification; they learn the
         * error from a non-blocking recv ("Obtain a more detailed error code by issuing a
         * non-blocking receive"). So SO_ERROR reads 0 here, and the kernel keeps the error for
         * recv to report.
         */
        result = 0;
    }
    else {
        answered = 0;
    }
    pthread_mutex_unlock(&lock);
    if (answered) {
        memcpy(value, &result, sizeof result);
        *length = (int) sizeof result;
    }
    return answered;
}

EXPORT int getsockopt(SOCKET s, int level, int name, char *value, int *length) {
    if (emulated_option(fd_of(s), level, name, value, length)) {
        return 0;
    }
    if (is_udp_offload_option(level, name)) {
        return get_udp_offload_option(fd_of(s), name, value, length);
    }
    if (level == WIN_SOL_SOCKET && name == WIN_SO_LINGER) {
        return get_linger(fd_of(s), value, length);
    }
    if (level == WIN_SOL_SOCKET && name == WIN_SO_EXCLUSIVEADDRUSE) {
        /* Not answered: no room for the value, or not a socket. */
        set_last_error(is_socket(fd_of(s)) ? WSAEFAULT : WSAENOTSOCK);
        return SOCKET_ERROR;
    }
    int linux_level;
    int linux_name;
    if (linux_option(level, name, &linux_level, &linux_name) != 0) {
        set_last_error(WSAENOPROTOOPT);
        return SOCKET_ERROR;
    }
    if (syscall(SYS_getsockopt, fd_of(s), linux_level, linux_name, value, length) != 0) {
        return socket_error();
    }
    if (linux_name == SO_ERROR && linux_level == SOL_SOCKET && *length >= (int) sizeof(int)) {
        int pending;
        memcpy(&pending, value, sizeof pending);
        if (pending != 0) {
            condition_fell(fd_of(s), SOCK_NOTIFY_EVENT_ERR);
        }
        pending = (pending == 0) ? 0 : wsa_code(pending);
        memcpy(value, &pending, sizeof pending);
    }
    return 0;
}

EXPORT int shutdown(SOCKET s, int how) {
    return (syscall(SYS_shutdown, fd_of(s), how) != 0) ? socket_error() : 0;
}

EXPORT int getsockname(SOCKET s, void *name, int *length) {
    if (syscall(SYS_getsockname, fd_of(s), name, length) != 0) {
        return socket_error();
    }
    address_out(name);
    return 0;
}

EXPORT int getpeername(SOCKET s, void *name, int *length) {
    if (syscall(SYS_getpeername, fd_of(s), name, length) != 0) {
        return socket_error();
    }
    address_out(name);
    return 0;
}

/* ---- completion ports ------------------------------------------------------------------------ */

struct registration;

/** A queued completion: a registration's own packet, or a posted one (owner NULL, heap). */
struct packet {
    struct packet *next;
    ULONG_PTR key;
    void *overlapped;
    DWORD bytes;
    int queued;
    struct registration *owner;
};

struct registration {
    int fd;
    uint32_t generation;
    struct port *port;
    UINT16 filter;
    UINT8 trigger;
    int enabled;
    /** Disabled by its one-shot trigger, rather than by a DISABLE. */
    int fired;
    int attached;
    /** Strict edge-triggered only (R1): the conditions taken to hold, which cannot rise. */
    DWORD high;
    struct packet packet;
};

struct port {
    struct port *next_live;
    pthread_cond_t ready;
    struct packet *head;
    struct packet *tail;
    int epoll_fd;
    int wake_fd;
    pthread_t pump;
    int closed;
    int references;
    /** Made in strict mode. */
    int strict;
};

/** Marks the wake eventfd's epoll entry; registration entries hold generation << 32 | fd. */
#define WAKE_TOKEN UINT64_MAX

static struct port *live_ports;
static struct registration **registrations;
static int registrations_size;
static uint32_t generations;

static struct registration *registration_of(int fd) {
    return (fd >= 0 && fd < registrations_size) ? registrations[fd] : NULL;
}

static int store_registration(int fd, struct registration *registration) {
    if (fd >= registrations_size) {
        int size = registrations_size ? registrations_size : 1024;
        while (size <= fd) {
            size *= 2;
        }
        struct registration **grown = realloc(registrations, (size_t) size * sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        memset(grown + registrations_size, 0, (size_t) (size - registrations_size) * sizeof *grown);
        registrations = grown;
        registrations_size = size;
    }
    registrations[fd] = registration;
    return 0;
}

static struct port *live_port(HANDLE handle) {
    for (struct port *port = live_ports; port != NULL; port = port->next_live) {
        if (port == handle) {
            return port;
        }
    }
    return NULL;
}

static void enqueue(struct port *port, struct packet *packet) {
    packet->next = NULL;
    packet->queued = 1;
    if (port->tail != NULL) {
        port->tail->next = packet;
    }
    else {
        port->head = packet;
    }
    port->tail = packet;
    pthread_cond_signal(&port->ready);
}

static int is_level_persistent(const struct registration *registration) {
    return registration->trigger == (SOCK_NOTIFY_TRIGGER_LEVEL | SOCK_NOTIFY_TRIGGER_PERSISTENT);
}

static int is_strict_edge(const struct registration *registration) {
    return registration->port->strict && (registration->trigger & SOCK_NOTIFY_TRIGGER_EDGE);
}

static uint32_t epoll_mask(DWORD events) {
    uint32_t mask = 0;
    mask |= (events & SOCK_NOTIFY_EVENT_IN) ? EPOLLIN : 0;
    mask |= (events & SOCK_NOTIFY_EVENT_OUT) ? EPOLLOUT : 0;
    mask |= (events & SOCK_NOTIFY_EVENT_HANGUP) ? EPOLLRDHUP : 0;
    return mask;
}

static uint32_t epoll_events_of(const struct registration *registration) {
    if (is_strict_edge(registration)) {
        /* R1: watch, level-triggered and once, the wanted conditions that are low: their rise is the edge. */
        return EPOLLONESHOT | (registration->enabled ? epoll_mask(registration->filter & ~registration->high) : 0);
    }
    uint32_t events = registration->enabled ? epoll_mask(registration->filter) : 0;
    if (!registration->enabled || (registration->trigger & SOCK_NOTIFY_TRIGGER_LEVEL)
            || (registration->trigger & SOCK_NOTIFY_TRIGGER_ONESHOT)) {
        events |= EPOLLONESHOT;
    }
    if (registration->enabled && (registration->trigger & SOCK_NOTIFY_TRIGGER_EDGE)) {
        events |= EPOLLET;
    }
    return events;
}

static int arm(struct registration *registration, int operation) {
    struct epoll_event event = { .events = epoll_events_of(registration),
            .data.u64 = ((uint64_t) registration->generation << 32) | (uint32_t) registration->fd };
    return epoll_ctl(registration->port->epoll_fd, operation, registration->fd, &event);
}

static DWORD notify_events(uint32_t epoll_events) {
    DWORD events = 0;
    events |= (epoll_events & EPOLLIN) ? SOCK_NOTIFY_EVENT_IN : 0;
    events |= (epoll_events & EPOLLOUT) ? SOCK_NOTIFY_EVENT_OUT : 0;
    events |= (epoll_events & (EPOLLRDHUP | EPOLLHUP)) ? SOCK_NOTIFY_EVENT_HANGUP : 0;
    events |= (epoll_events & EPOLLERR) ? SOCK_NOTIFY_EVENT_ERR : 0;
    return events;
}

/** The conditions that hold now on a socket, as poll() sees them. */
static DWORD polled(int fd) {
    struct pollfd state = { .fd = fd, .events = POLLIN | POLLOUT | POLLRDHUP };
    return (poll(&state, 1, 0) <= 0) ? 0 : notify_events((uint32_t) state.revents);
}

/** Whether a strict socket is a stream socket neither connecting, connected nor listening yet. */
static int is_fresh(int fd) {
    const struct socket_state *state = state_of(fd);
    return state != NULL && state->strict && state->fresh;
}

/**
 * The conditions that hold now, for a strict registration. Linux calls a stream socket that
 * neither connects nor listens yet writable and hung up, which a socket that cannot send is not:
 * until it connects or listens, nothing holds (and the pump ignores what epoll says of it), so that
 * a connect's completion is the OUT a connecting socket waits for.
 */
static DWORD conditions_now(int fd) {
    return is_fresh(fd) ? 0 : polled(fd);
}

/** Lenient: the filtered events that hold now, for a level-triggered registration. */
static DWORD current_level(const struct registration *registration) {
    return polled(registration->fd) & (registration->filter | SOCK_NOTIFY_EVENT_ERR);
}

static void condition_fell(int fd, DWORD events) {
    pthread_mutex_lock(&lock);
    struct registration *registration = registration_of(fd);
    if (registration != NULL && is_strict_edge(registration) && (registration->high & events) != 0) {
        /*
         * R1: "The server must keep receiving until it receives a WSAEWOULDBLOCK. Otherwise, it
         * can't be sure that a rising edge will be observed" (the page's edge-triggered sample).
         * Only now is the condition low, so only now can it rise again.
         */
        registration->high &= ~events;
        if (registration->enabled) {
            arm(registration, EPOLL_CTL_MOD);
        }
    }
    pthread_mutex_unlock(&lock);
}

static void watch_from_now(int fd) {
    struct registration *registration = registration_of(fd);
    if (registration != NULL && registration->port->strict && registration->enabled) {
        /* What epoll reported while the socket was fresh, not yet read by the pump, is ignored: a new generation. */
        registration->generation = ++generations;
        arm(registration, EPOLL_CTL_MOD);
    }
}

/** Takes the registration out of the socket table; frees it unless its packet is still queued. */
static void detach(struct registration *registration) {
    registration->attached = 0;
    registration->enabled = 0;
    if (registrations[registration->fd] == registration) {
        registrations[registration->fd] = NULL;
    }
    if (!registration->packet.queued) {
        free(registration);
    }
}

static int valid_trigger(UINT8 trigger) {
    int level = (trigger & SOCK_NOTIFY_TRIGGER_LEVEL) != 0;
    int edge = (trigger & SOCK_NOTIFY_TRIGGER_EDGE) != 0;
    int oneshot = (trigger & SOCK_NOTIFY_TRIGGER_ONESHOT) != 0;
    int persistent = (trigger & SOCK_NOTIFY_TRIGGER_PERSISTENT) != 0;
    return (trigger & ~0x0F) == 0 && level != edge && oneshot != persistent;
}

/**
 * R6: "A failed connect gives ERR without OUT" (winsock-abi.md), where Linux reports a refused
 * connect writable as well; once the connect failed, OUT is never delivered for the socket.
 */
static DWORD connect_outcome(const struct registration *registration, DWORD delivered) {
    struct socket_state *state = state_of(registration->fd);
    if (state == NULL) {
        return delivered;
    }
    if (state->connecting && (delivered & SOCK_NOTIFY_EVENT_ERR)) {
        state->connect_failed = 1;
    }
    if (delivered & (SOCK_NOTIFY_EVENT_OUT | SOCK_NOTIFY_EVENT_ERR)) {
        state->connecting = 0;
    }
    return state->connect_failed ? (delivered & ~(DWORD) SOCK_NOTIFY_EVENT_OUT) : delivered;
}

/** Queues what a registration notifies: the events join its packet, queued unless it is already. */
static void notify(struct registration *registration, DWORD delivered) {
    if (registration->port->strict) {
        delivered = connect_outcome(registration, delivered);
    }
    if (delivered == 0) {
        return;
    }
    registration->packet.bytes |= delivered;
    if (!registration->packet.queued) {
        enqueue(registration->port, &registration->packet);
    }
    if (registration->trigger & SOCK_NOTIFY_TRIGGER_ONESHOT) {
        registration->enabled = 0;
        registration->fired = 1;
    }
}

/**
 * R1: an edge-triggered registration enabled (or enabled again) takes the conditions holding now
 * as its starting point: "the socket needs to be drained after enabling registrations" (the page,
 * on edge-triggered one-shot registrations), because what is already readable raises no edge.
 * Called before the registration is armed.
 */
static void start_from_now(struct registration *registration) {
    if (is_strict_edge(registration)) {
        registration->high = conditions_now(registration->fd);
    }
}

/**
 * A strict level-triggered registration notifies what holds when it is enabled, queued within the
 * enabling call (which, says the page, "retrieves any notifications that are already pending"), so
 * that a test knows it is queued once the call returned. Called once the registration is armed: its
 * pump notification, should it come too, joins the same packet.
 */
static void queue_what_holds(struct registration *registration) {
    if (registration->port->strict && (registration->trigger & SOCK_NOTIFY_TRIGGER_LEVEL)) {
        notify(registration, conditions_now(registration->fd) & (registration->filter | SOCK_NOTIFY_EVENT_ERR));
    }
}

static DWORD enable(struct port *port, const SOCK_NOTIFY_REGISTRATION *change, int fd) {
    if (!valid_trigger(change->triggerFlags) || (change->eventFilter & ~SOCK_NOTIFY_REGISTER_EVENT_ALL) != 0) {
        return ERROR_INVALID_PARAMETER;
    }
    struct registration *registration = registration_of(fd);
    if (registration != NULL) {
        /* A socket belongs to one port, and its completion key is fixed at registration. */
        if (registration->port != port || registration->packet.key != (ULONG_PTR) change->completionKey) {
            return ERROR_INVALID_PARAMETER;
        }
        registration->filter = change->eventFilter;
        registration->trigger = change->triggerFlags;
        registration->enabled = 1;
        registration->fired = 0;
        start_from_now(registration);
        if (arm(registration, EPOLL_CTL_MOD) != 0) {
            return (DWORD) wsa_code(errno);
        }
        queue_what_holds(registration);
        return ERROR_SUCCESS;
    }
    registration = calloc(1, sizeof *registration);
    if (registration == NULL || store_registration(fd, registration) != 0) {
        free(registration);
        return ERROR_NOT_ENOUGH_MEMORY;
    }
    registration->fd = fd;
    registration->generation = ++generations;
    registration->port = port;
    registration->filter = change->eventFilter;
    registration->trigger = change->triggerFlags;
    registration->enabled = 1;
    registration->attached = 1;
    registration->packet.key = (ULONG_PTR) change->completionKey;
    registration->packet.owner = registration;
    start_from_now(registration);
    if (arm(registration, EPOLL_CTL_ADD) != 0) {
        DWORD code = (DWORD) wsa_code(errno);
        detach(registration);
        return code;
    }
    queue_what_holds(registration);
    return ERROR_SUCCESS;
}

static DWORD apply(struct port *port, const SOCK_NOTIFY_REGISTRATION *change) {
    int fd = fd_of(change->socket);
    if (!is_socket(fd)) {
        return WSAENOTSOCK;
    }
    if (change->operation == SOCK_NOTIFY_OP_ENABLE) {
        /*
         * R8: the page documents ENABLE with the events to watch and DISABLE for none; an ENABLE with
         * an empty filter has no documented meaning, so the strict emulator refuses it rather than guess.
         */
        if (port->strict && change->eventFilter == 0) {
            return ERROR_INVALID_PARAMETER;
        }
        return enable(port, change, fd);
    }
    struct registration *registration = registration_of(fd);
    if (change->operation != SOCK_NOTIFY_OP_DISABLE && change->operation != SOCK_NOTIFY_OP_REMOVE) {
        return ERROR_INVALID_PARAMETER;
    }
    /* Not documented: the emulator's choice of result for a socket this port has not registered. */
    if (registration == NULL || registration->port != port) {
        return ERROR_NOT_FOUND;
    }
    if (change->operation == SOCK_NOTIFY_OP_DISABLE) {
        /*
         * R3: DISABLE "keeps the registration but stops new notifications; queued ones may still
         * arrive" (winsock-abi.md): the queued packet stays where it is, delivered as queued.
         */
        registration->enabled = 0;
        registration->fired = 0;
        return (arm(registration, EPOLL_CTL_MOD) != 0) ? (DWORD) wsa_code(errno) : ERROR_SUCCESS;
    }
    epoll_ctl(port->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
    if (port->strict) {
        /*
         * R4: events "are coalesced into one mask per socket while queued" (winsock-abi.md), and
         * the page's multi-threaded sample tests the REMOVE bit among the other events of an entry
         * (events & SOCK_NOTIFY_EVENT_REMOVE), while its DeregisterAndWait drops the notifications
         * that come before the REMOVE. So REMOVE joins a queued packet, which keeps its events and
         * its place: IN|REMOVE in one entry. After it, "no more notifications will be provided".
         */
        registration->packet.bytes |= SOCK_NOTIFY_EVENT_REMOVE;
    }
    else {
        /* Lenient: the packet becomes the REMOVE notification; events still queued are dropped. */
        registration->packet.bytes = SOCK_NOTIFY_EVENT_REMOVE;
    }
    if (!registration->packet.queued) {
        enqueue(port, &registration->packet);
    }
    detach(registration);
    return ERROR_SUCCESS;
}

/** Reads epoll and queues the registrations' packets until the port closes. */
static void *pump(void *argument) {
    struct port *port = argument;
    struct epoll_event events[64];
    for (;;) {
        int ready = epoll_wait(port->epoll_fd, events, 64, -1);
        pthread_mutex_lock(&lock);
        if (port->closed) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        for (int i = 0; i < ready; i++) {
            if (events[i].data.u64 == WAKE_TOKEN) {
                continue;
            }
            struct registration *registration = registration_of((int) (uint32_t) events[i].data.u64);
            if (registration == NULL || registration->port != port || !registration->enabled
                    || registration->generation != (uint32_t) (events[i].data.u64 >> 32)) {
                continue;
            }
            if (port->strict && is_fresh(registration->fd)) {
                /* See conditions_now(): watched again by watch_from_now() once it connects or listens. */
                continue;
            }
            DWORD observed = notify_events(events[i].events);
            DWORD rising = 0;
            if (is_strict_edge(registration)) {
                /* R1: only what was low and is high now is an edge; all that holds is high now. */
                rising = observed & ~registration->high;
                registration->high |= observed;
                observed = rising;
            }
            notify(registration, observed & (registration->filter | SOCK_NOTIFY_EVENT_ERR));
            if (rising != 0 && registration->enabled) {
                /* R1: watch the conditions still low. Had nothing risen, only conditions already high
                 * (an unasked hang-up, say) were reported: watching again would report them forever. */
                arm(registration, EPOLL_CTL_MOD);
            }
        }
        pthread_mutex_unlock(&lock);
    }
}

/**
 * Unlinks the head packet into *entry; returns 0 when it was a stale level-triggered one, not
 * delivered (lenient only). A packet taken to deliver (not dropped by closing the port) records the
 * ERR it carries for R5.
 */
static int take(struct port *port, OVERLAPPED_ENTRY *entry, int delivering) {
    struct packet *packet = port->head;
    port->head = packet->next;
    if (port->head == NULL) {
        port->tail = NULL;
    }
    packet->queued = 0;
    DWORD events = packet->bytes;
    packet->bytes = 0;
    int stale = 0;
    struct registration *registration = packet->owner;
    if (port->strict) {
        /*
         * R2: a completion packet is delivered as it was queued; nothing checks the socket again.
         * R3: this holds after DISABLE and after closesocket too: "already-queued notifications
         * might still be delivered" (the page, on closesocket's automatic deregistration).
         */
        struct socket_state *state = (registration != NULL && registration->attached) ? state_of(registration->fd) : NULL;
        if (delivering && state != NULL && (events & SOCK_NOTIFY_EVENT_ERR)) {
            state->error_notified = 1;
        }
    }
    else if (registration != NULL && registration->attached && (registration->trigger & SOCK_NOTIFY_TRIGGER_LEVEL)) {
        /* Lenient: a level-triggered packet is checked against the socket's state, as epoll does. */
        events = current_level(registration);
        stale = events == 0;
        if (stale && registration->fired) {
            /* Nothing was delivered, so the one-shot registration has not fired yet. */
            registration->enabled = 1;
            registration->fired = 0;
        }
    }
    if (!stale) {
        entry->lpCompletionKey = packet->key;
        entry->lpOverlapped = packet->overlapped;
        entry->Internal = 0;
        entry->dwNumberOfBytesTransferred = events;
    }
    if (registration == NULL) {
        free(packet);
    }
    else if (!registration->attached) {
        free(registration);
    }
    else if (registration->enabled && (registration->trigger & SOCK_NOTIFY_TRIGGER_LEVEL)
            && (stale || is_level_persistent(registration))) {
        arm(registration, EPOLL_CTL_MOD);
    }
    return !stale;
}

static void release_reference(struct port *port) {
    if (--port->references == 0) {
        pthread_cond_destroy(&port->ready);
        free(port);
    }
}

static void deadline_after(DWORD millis, struct timespec *deadline) {
    clock_gettime(CLOCK_MONOTONIC, deadline);
    deadline->tv_sec += millis / 1000;
    deadline->tv_nsec += (long) (millis % 1000) * 1000000L;
    if (deadline->tv_nsec >= 1000000000L) {
        deadline->tv_sec += 1;
        deadline->tv_nsec -= 1000000000L;
    }
}

/** Dequeues with the lock held and a reference taken; returns a Win32 code. */
static DWORD dequeue(struct port *port, OVERLAPPED_ENTRY *entries, ULONG count, ULONG *received, DWORD timeout) {
    struct timespec deadline;
    if (timeout != INFINITE) {
        deadline_after(timeout, &deadline);
    }
    ULONG taken = 0;
    int timed_out = timeout == 0;
    for (;;) {
        while (port->head == NULL && !port->closed && !timed_out) {
            int waited = (timeout == INFINITE) ? pthread_cond_wait(&port->ready, &lock)
                    : pthread_cond_timedwait(&port->ready, &lock, &deadline);
            timed_out = waited == ETIMEDOUT;
        }
        if (port->closed) {
            return ERROR_ABANDONED_WAIT_0;
        }
        while (taken < count && port->head != NULL) {
            taken += take(port, &entries[taken], 1);
        }
        /* Only stale level-triggered packets were queued: wait on, until the deadline. */
        if (taken > 0 || timed_out) {
            break;
        }
    }
    if (port->head != NULL) {
        pthread_cond_signal(&port->ready);
    }
    *received = taken;
    return (taken == 0) ? WAIT_TIMEOUT : ERROR_SUCCESS;
}

static int overlaps(const void *a, size_t a_size, const void *b, size_t b_size) {
    return a != NULL && b != NULL && (const char *) a < (const char *) b + b_size && (const char *) b < (const char *) a + a_size;
}

/**
 * A code that fails the whole call, as armed by emu_reject_next_batch or emu_reject_batches_with;
 * ERROR_SUCCESS when the call proceeds. With the lock held. On Windows a failed call returns its
 * code and "nothing changed" (winsock-abi.md); the page's sample says a call "can fail due to
 * transient memory conditions, or due to invalid input such as a bad handle".
 */
static DWORD rejection(const struct port *port, const SOCK_NOTIFY_REGISTRATION *changes, UINT32 count) {
    if (count == 0) {
        return ERROR_SUCCESS;
    }
    if (rejected_batches > 0 && (rejected_port == NULL || rejected_port == port)) {
        rejected_batches--;
        return rejected_batch_code;
    }
    for (UINT32 i = 0; i < count; i++) {
        for (int j = 0; j < rejected_socket_count; j++) {
            if (rejected_sockets[j].socket == changes[i].socket) {
                return rejected_sockets[j].code;
            }
        }
    }
    return ERROR_SUCCESS;
}

EXPORT DWORD ProcessSocketNotifications(HANDLE completionPort, UINT32 registrationCount,
        SOCK_NOTIFY_REGISTRATION *registrationInfos, UINT32 timeoutMs, ULONG completionCount,
        OVERLAPPED_ENTRY *completionPortEntries, UINT32 *receivedEntryCount) {
    if ((registrationCount == 0) != (registrationInfos == NULL)
            || (completionCount == 0 && (timeoutMs != 0 || completionPortEntries != NULL || receivedEntryCount != NULL))
            || (completionCount != 0 && (completionPortEntries == NULL || receivedEntryCount == NULL))
            || overlaps(registrationInfos, registrationCount * sizeof *registrationInfos,
                    completionPortEntries, completionCount * sizeof *completionPortEntries)) {
        return ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&lock);
    struct port *port = live_port(completionPort);
    if (port == NULL) {
        pthread_mutex_unlock(&lock);
        return ERROR_INVALID_HANDLE;
    }
    DWORD rejected = rejection(port, registrationInfos, registrationCount);
    if (rejected != ERROR_SUCCESS) {
        pthread_mutex_unlock(&lock);
        return rejected;
    }
    port->references++;
    for (UINT32 i = 0; i < registrationCount; i++) {
        registrationInfos[i].registrationResult = apply(port, &registrationInfos[i]);
    }
    DWORD result = ERROR_SUCCESS;
    if (completionCount != 0) {
        ULONG received = 0;
        result = dequeue(port, completionPortEntries, completionCount, &received, timeoutMs);
        *receivedEntryCount = received;
    }
    release_reference(port);
    pthread_mutex_unlock(&lock);
    return result;
}

EXPORT BOOL GetQueuedCompletionStatusEx(HANDLE completionPort, OVERLAPPED_ENTRY *entries, ULONG count,
        ULONG *removed, DWORD milliseconds, BOOL alertable) {
    (void) alertable;
    if (entries == NULL || count == 0 || removed == NULL) {
        set_last_error(ERROR_INVALID_PARAMETER);
        return 0;
    }
    pthread_mutex_lock(&lock);
    struct port *port = live_port(completionPort);
    if (port == NULL) {
        pthread_mutex_unlock(&lock);
        set_last_error(ERROR_INVALID_HANDLE);
        return 0;
    }
    port->references++;
    DWORD result = dequeue(port, entries, count, removed, milliseconds);
    release_reference(port);
    pthread_mutex_unlock(&lock);
    if (result != ERROR_SUCCESS) {
        set_last_error((int) result);
        return 0;
    }
    return 1;
}

EXPORT BOOL PostQueuedCompletionStatus(HANDLE completionPort, DWORD bytes, ULONG_PTR key, void *overlapped) {
    struct packet *packet = calloc(1, sizeof *packet);
    if (packet == NULL) {
        set_last_error(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    packet->key = key;
    packet->overlapped = overlapped;
    packet->bytes = bytes;
    pthread_mutex_lock(&lock);
    struct port *port = live_port(completionPort);
    if (port != NULL) {
        enqueue(port, packet);
    }
    pthread_mutex_unlock(&lock);
    if (port == NULL) {
        free(packet);
        set_last_error(ERROR_INVALID_HANDLE);
        return 0;
    }
    return 1;
}

EXPORT HANDLE CreateIoCompletionPort(HANDLE file, HANDLE existing, ULONG_PTR key, DWORD threads) {
    (void) threads;
    if (file != INVALID_HANDLE_VALUE || existing != NULL || key != 0) {
        /* Only the creation of a new port is emulated; sockets join a port by registering. */
        set_last_error(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    struct port *port = calloc(1, sizeof *port);
    if (port == NULL) {
        set_last_error(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    port->references = 1;
    pthread_mutex_lock(&lock);
    port->strict = mode == EMU_STRICT;
    pthread_mutex_unlock(&lock);
    port->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    port->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event wake = { .events = EPOLLIN, .data.u64 = WAKE_TOKEN };
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&port->ready, &attributes);
    pthread_condattr_destroy(&attributes);
    /* The pump takes no signal: they belong to the JVM's threads. */
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    int failed = port->epoll_fd < 0 || port->wake_fd < 0
            || epoll_ctl(port->epoll_fd, EPOLL_CTL_ADD, port->wake_fd, &wake) != 0
            || pthread_create(&port->pump, NULL, pump, port) != 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (failed) {
        int code = wsa_code(errno);
        if (port->epoll_fd >= 0) {
            close(port->epoll_fd);
        }
        if (port->wake_fd >= 0) {
            close(port->wake_fd);
        }
        pthread_cond_destroy(&port->ready);
        free(port);
        set_last_error(code == WSAEMFILE ? WSAEMFILE : ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    pthread_mutex_lock(&lock);
    port->next_live = live_ports;
    live_ports = port;
    pthread_mutex_unlock(&lock);
    return port;
}

/** Closes a completion port: its registrations go, its queue is dropped, its waiters wake. */
EXPORT BOOL CloseHandle(HANDLE handle) {
    pthread_mutex_lock(&lock);
    struct port *port = live_port(handle);
    if (port == NULL) {
        pthread_mutex_unlock(&lock);
        set_last_error(ERROR_INVALID_HANDLE);
        return 0;
    }
    for (struct port **link = &live_ports; *link != NULL; link = &(*link)->next_live) {
        if (*link == port) {
            *link = port->next_live;
            break;
        }
    }
    port->closed = 1;
    while (port->head != NULL) {
        OVERLAPPED_ENTRY dropped;
        take(port, &dropped, 0);
    }
    for (int fd = 0; fd < registrations_size; fd++) {
        if (registrations[fd] != NULL && registrations[fd]->port == port) {
            detach(registrations[fd]);
        }
    }
    pthread_cond_broadcast(&port->ready);
    pthread_mutex_unlock(&lock);
    uint64_t one = 1;
    if (write(port->wake_fd, &one, sizeof one) != sizeof one) {
        pthread_cancel(port->pump);
    }
    pthread_join(port->pump, NULL);
    close(port->epoll_fd);
    close(port->wake_fd);
    pthread_mutex_lock(&lock);
    release_reference(port);
    pthread_mutex_unlock(&lock);
    return 1;
}

/**
 * Closes a socket. Its registration goes with it silently: "An automatic deregistration via
 * closesocket won't generate a SOCK_NOTIFY_EVENT_REMOVE notification" (the page); a packet already
 * queued stays queued (R3, see take()).
 */
EXPORT int closesocket(SOCKET s) {
    int fd = fd_of(s);
    pthread_mutex_lock(&lock);
    struct registration *registration = registration_of(fd);
    if (registration != NULL) {
        epoll_ctl(registration->port->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        detach(registration);
    }
    struct socket_state *state = state_of(fd);
    if (state != NULL) {
        state->in_use = 0;
    }
    int closed = close(fd);
    int error = errno;
    pthread_mutex_unlock(&lock);
    if (closed != 0) {
        errno = error;
        return socket_error();
    }
    return 0;
}

/* ---- test hooks (see the top of the file) ------------------------------------------------------ */

EXPORT int emu_set_mode(int new_mode) {
    if (new_mode != EMU_STRICT && new_mode != EMU_LENIENT) {
        return -1;
    }
    pthread_mutex_lock(&lock);
    int previous = mode;
    mode = new_mode;
    pthread_mutex_unlock(&lock);
    return previous;
}

EXPORT int emu_mode(void) {
    pthread_mutex_lock(&lock);
    int current = mode;
    pthread_mutex_unlock(&lock);
    return current;
}

EXPORT int emu_fail_next_sends(SOCKET s, int count, int wsa_error) {
    if (count < 0 || (count > 0 && wsa_error == 0)) {
        return -1;
    }
    pthread_mutex_lock(&lock);
    int result = 0;
    if (s == INVALID_SOCKET) {
        any_failing_sends = count;
        any_failing_code = wsa_error;
    }
    else {
        struct socket_state *state = state_of(fd_of(s));
        if (state != NULL) {
            state->failing_sends = count;
            state->failing_code = wsa_error;
        }
        result = (state != NULL) ? 0 : -1;
    }
    if (result == 0 && count > 0) {
        __atomic_store_n(&send_hooks_armed, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

EXPORT int emu_fail_sends_for(SOCKET s, int millis, int wsa_error) {
    if (millis < 0 || (millis > 0 && wsa_error == 0)) {
        return -1;
    }
    pthread_mutex_lock(&lock);
    struct socket_state *state = state_of(fd_of(s));
    if (state != NULL) {
        state->failing_until = (millis > 0) ? monotonic_nanos() + (long long) millis * 1000000LL : 0;
        state->failing_until_code = wsa_error;
        if (millis > 0) {
            __atomic_store_n(&send_hooks_armed, 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&lock);
    return (state != NULL) ? 0 : -1;
}

/** Codes a caller would read as a timeout, or as success, cannot fail a call. */
static int is_failure_code(DWORD code) {
    return code != ERROR_SUCCESS && code != WAIT_TIMEOUT && code != ERROR_TIMEOUT;
}

EXPORT int emu_reject_next_batch(HANDLE port, int count, DWORD code) {
    if (count < 0 || (count > 0 && !is_failure_code(code))) {
        return -1;
    }
    pthread_mutex_lock(&lock);
    rejected_port = port;
    rejected_batches = count;
    rejected_batch_code = code;
    pthread_mutex_unlock(&lock);
    return 0;
}

EXPORT int emu_reject_batches_with(SOCKET s, DWORD code) {
    if (code != ERROR_SUCCESS && !is_failure_code(code)) {
        return -1;
    }
    pthread_mutex_lock(&lock);
    int found = -1;
    for (int i = 0; i < rejected_socket_count; i++) {
        if (rejected_sockets[i].socket == s) {
            found = i;
        }
    }
    int result = 0;
    if (code == ERROR_SUCCESS && found >= 0) {
        rejected_sockets[found] = rejected_sockets[--rejected_socket_count];
    }
    else if (code != ERROR_SUCCESS && found >= 0) {
        rejected_sockets[found].code = code;
    }
    else if (code != ERROR_SUCCESS && rejected_socket_count < MAX_REJECTED_SOCKETS) {
        rejected_sockets[rejected_socket_count].socket = s;
        rejected_sockets[rejected_socket_count].code = code;
        rejected_socket_count++;
    }
    else if (code != ERROR_SUCCESS) {
        result = -1;
    }
    pthread_mutex_unlock(&lock);
    return result;
}

EXPORT int emu_set_udp_offload(int on) {
    if (on != 0 && on != 1) {
        return -1;
    }
    return __atomic_exchange_n(&udp_offload, on, __ATOMIC_ACQ_REL);
}

EXPORT void emu_reset(void) {
    __atomic_store_n(&udp_offload, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&lock);
    mode = initial_mode;
    rejected_port = NULL;
    rejected_batches = 0;
    rejected_socket_count = 0;
    any_failing_sends = 0;
    for (int fd = 0; fd < socket_states_size; fd++) {
        socket_states[fd].failing_sends = 0;
        socket_states[fd].failing_until = 0;
    }
    __atomic_store_n(&send_hooks_armed, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

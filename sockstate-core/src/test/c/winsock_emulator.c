/*
 * winsock_emulator.c: the Winsock and I/O completion port functions the winsock backend calls,
 * emulated on Linux over epoll, so that the backend runs the contract suites where there is no
 * Windows. Test code only: it never ships.
 *
 * Every function has its Windows name and Windows ABI types (SOCKET = UINT_PTR, HANDLE, DWORD...),
 * takes Windows constants (AF_INET6 23, SOL_SOCKET 0xffff, FIONBIO...) and reports WSAE* and
 * Win32 codes. A failed call stores its code both where WSAGetLastError/GetLastError read it and in
 * errno, because JNA captures errno after every call as "the last error" on Linux, as it captures
 * GetLastError() on Windows.
 *
 * The semantics are those of the reference notes (winsock-abi.md, "Semantics worth knowing"):
 * - a socket handle is the Linux descriptor; a completion port is a heap object;
 * - every registration owns one completion packet: events coalesce into it while it is queued;
 * - ONESHOT disables (does not remove) the registration after one notification;
 * - DISABLE keeps the registration and stops new notifications;
 * - REMOVE turns the registration's packet into its REMOVE notification, queued exactly once, and
 *   nothing follows it; closesocket deregisters silently (an already-queued packet is still
 *   delivered);
 * - a level-triggered packet is checked against the socket's state when it is dequeued, as epoll
 *   does: a condition that no longer holds (data read meanwhile) is not delivered, and the
 *   registration stays armed;
 * - ERR is delivered whatever the filter says; posted packets share the queue;
 * - any number of threads may wait in one port; closing the port wakes them with
 *   ERROR_ABANDONED_WAIT_0; a timeout is WAIT_TIMEOUT.
 *
 * Readiness comes from one epoll instance per port, read by a pump thread that queues packets as
 * the kernel reports them, like the Windows kernel completes a socket's notification. Inside epoll
 * level-triggered registrations are always one-shot: a persistent one is armed again when its
 * packet has been dequeued, so a socket that stays readable notifies again and never floods the
 * queue. Edge-triggered ones use EPOLLET, one-shot or not as asked.
 *
 * One mutex guards every port and registration: simplicity over throughput, it is a test double.
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
#define WIN_SO_KEEPALIVE 0x0008
#define WIN_SO_SNDBUF 0x1001
#define WIN_SO_RCVBUF 0x1002
#define WIN_SO_ERROR 0x1007
#define WIN_SO_TYPE 0x1008
#define WIN_IPV6_V6ONLY 27
#define WIN_FIONBIO ((int32_t) 0x8004667E)
#define WIN_SIO_UDP_CONNRESET 0x9800000Cu
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

EXPORT SOCKET WSASocketW(int family, int type, int protocol, void *info, unsigned group, DWORD flags) {
    (void) info;
    (void) group;
    int cloexec = (flags & WSA_FLAG_NO_HANDLE_INHERIT) ? SOCK_CLOEXEC : 0;
    int fd = socket(linux_family(family), type | cloexec, protocol);
    if (fd < 0) {
        socket_error();
        return INVALID_SOCKET;
    }
    return (SOCKET) fd;
}

EXPORT int WSAIoctl(SOCKET s, DWORD code, void *in, DWORD in_length, void *out, DWORD out_length,
        DWORD *returned, void *overlapped, void *routine) {
    (void) in;
    (void) in_length;
    (void) out;
    (void) out_length;
    if (!is_socket(fd_of(s))) {
        set_last_error(WSAENOTSOCK);
        return SOCKET_ERROR;
    }
    if (code != WIN_SIO_UDP_CONNRESET || overlapped != NULL || routine != NULL) {
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

EXPORT int bind(SOCKET s, const void *name, int length) {
    struct sockaddr_storage address;
    if (address_in(name, length, &address) != 0) {
        set_last_error(WSAEFAULT);
        return SOCKET_ERROR;
    }
    return (syscall(SYS_bind, fd_of(s), &address, length) != 0) ? socket_error() : 0;
}

EXPORT int listen(SOCKET s, int backlog) {
    return (syscall(SYS_listen, fd_of(s), backlog) != 0) ? socket_error() : 0;
}

EXPORT SOCKET accept(SOCKET s, void *name, int *length) {
    int fd = (int) syscall(SYS_accept4, fd_of(s), name, length, SOCK_CLOEXEC);
    if (fd < 0) {
        socket_error();
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
    if (syscall(SYS_connect, fd_of(s), &address, length) == 0) {
        return 0;
    }
    /* A non-blocking connect under way is WSAEWOULDBLOCK on Windows, not WSAEINPROGRESS. */
    set_last_error((errno == EINPROGRESS) ? WSAEWOULDBLOCK : wsa_code(errno));
    return SOCKET_ERROR;
}

EXPORT int recv(SOCKET s, char *buffer, int length, int flags) {
    long read = syscall(SYS_recvfrom, fd_of(s), buffer, (size_t) length, flags, NULL, NULL);
    return (read < 0) ? socket_error() : (int) read;
}

EXPORT int send(SOCKET s, const char *buffer, int length, int flags) {
    long sent = syscall(SYS_sendto, fd_of(s), buffer, (size_t) length, flags | MSG_NOSIGNAL, NULL, 0);
    return (sent < 0) ? socket_error() : (int) sent;
}

/** As on Windows, a datagram longer than the buffer fills it and fails with WSAEMSGSIZE. */
EXPORT int recvfrom(SOCKET s, char *buffer, int length, int flags, void *from, int *from_length) {
    int fd = fd_of(s);
    int truncate = is_datagram(fd) ? MSG_TRUNC : 0;
    long read = syscall(SYS_recvfrom, fd, buffer, (size_t) length, flags | truncate, from, from_length);
    if (read < 0) {
        return socket_error();
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
    long sent = syscall(SYS_sendto, fd_of(s), buffer, (size_t) length, flags | MSG_NOSIGNAL, &address, to_length);
    return (sent < 0) ? socket_error() : (int) sent;
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
    if (level == IPPROTO_TCP && name == TCP_NODELAY) {
        *linux_level = IPPROTO_TCP;
        *linux_name = TCP_NODELAY;
        return 0;
    }
    if (level == IPPROTO_IPV6 && name == WIN_IPV6_V6ONLY) {
        *linux_level = IPPROTO_IPV6;
        *linux_name = IPV6_V6ONLY;
        return 0;
    }
    return -1;
}

EXPORT int setsockopt(SOCKET s, int level, int name, const char *value, int length) {
    int linux_level;
    int linux_name;
    if (linux_option(level, name, &linux_level, &linux_name) != 0) {
        set_last_error(WSAENOPROTOOPT);
        return SOCKET_ERROR;
    }
    return (syscall(SYS_setsockopt, fd_of(s), linux_level, linux_name, value, length) != 0) ? socket_error() : 0;
}

EXPORT int getsockopt(SOCKET s, int level, int name, char *value, int *length) {
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
};

/** Marks the wake eventfd's epoll entry; registration entries hold generation << 32 | fd. */
#define WAKE_TOKEN UINT64_MAX

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
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

static uint32_t epoll_events_of(const struct registration *registration) {
    uint32_t events = 0;
    if (registration->enabled) {
        events |= (registration->filter & SOCK_NOTIFY_EVENT_IN) ? EPOLLIN : 0;
        events |= (registration->filter & SOCK_NOTIFY_EVENT_OUT) ? EPOLLOUT : 0;
        events |= (registration->filter & SOCK_NOTIFY_EVENT_HANGUP) ? EPOLLRDHUP : 0;
    }
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
        return (arm(registration, EPOLL_CTL_MOD) != 0) ? (DWORD) wsa_code(errno) : ERROR_SUCCESS;
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
    if (arm(registration, EPOLL_CTL_ADD) != 0) {
        DWORD code = (DWORD) wsa_code(errno);
        detach(registration);
        return code;
    }
    return ERROR_SUCCESS;
}

static DWORD apply(struct port *port, const SOCK_NOTIFY_REGISTRATION *change) {
    int fd = fd_of(change->socket);
    if (!is_socket(fd)) {
        return WSAENOTSOCK;
    }
    if (change->operation == SOCK_NOTIFY_OP_ENABLE) {
        return enable(port, change, fd);
    }
    struct registration *registration = registration_of(fd);
    if (change->operation != SOCK_NOTIFY_OP_DISABLE && change->operation != SOCK_NOTIFY_OP_REMOVE) {
        return ERROR_INVALID_PARAMETER;
    }
    if (registration == NULL || registration->port != port) {
        return ERROR_NOT_FOUND;
    }
    if (change->operation == SOCK_NOTIFY_OP_DISABLE) {
        registration->enabled = 0;
        registration->fired = 0;
        return (arm(registration, EPOLL_CTL_MOD) != 0) ? (DWORD) wsa_code(errno) : ERROR_SUCCESS;
    }
    epoll_ctl(port->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
    /* The packet becomes the REMOVE notification: events still queued for the key are dropped. */
    registration->packet.bytes = SOCK_NOTIFY_EVENT_REMOVE;
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
            DWORD delivered = notify_events(events[i].events) & (registration->filter | SOCK_NOTIFY_EVENT_ERR);
            if (delivered == 0) {
                continue;
            }
            registration->packet.bytes |= delivered;
            if (!registration->packet.queued) {
                enqueue(port, &registration->packet);
            }
            if (registration->trigger & SOCK_NOTIFY_TRIGGER_ONESHOT) {
                registration->enabled = 0;
                registration->fired = 1;
            }
        }
        pthread_mutex_unlock(&lock);
    }
}

/** The filtered events that hold now, for a level-triggered registration. */
static DWORD current_level(const struct registration *registration) {
    struct pollfd state = { .fd = registration->fd, .events = POLLIN | POLLOUT | POLLRDHUP };
    if (poll(&state, 1, 0) <= 0) {
        return 0;
    }
    DWORD events = 0;
    events |= (state.revents & POLLIN) ? SOCK_NOTIFY_EVENT_IN : 0;
    events |= (state.revents & POLLOUT) ? SOCK_NOTIFY_EVENT_OUT : 0;
    events |= (state.revents & (POLLRDHUP | POLLHUP)) ? SOCK_NOTIFY_EVENT_HANGUP : 0;
    events |= (state.revents & POLLERR) ? SOCK_NOTIFY_EVENT_ERR : 0;
    return events & (registration->filter | SOCK_NOTIFY_EVENT_ERR);
}

/** Unlinks the head packet into *entry; returns 0 when it was a stale level-triggered one, not delivered. */
static int take(struct port *port, OVERLAPPED_ENTRY *entry) {
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
    if (registration != NULL && registration->attached && (registration->trigger & SOCK_NOTIFY_TRIGGER_LEVEL)) {
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
            taken += take(port, &entries[taken]);
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
        take(port, &dropped);
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

/** Closes a socket; a registration goes with it silently, as on Windows (no REMOVE). */
EXPORT int closesocket(SOCKET s) {
    int fd = fd_of(s);
    pthread_mutex_lock(&lock);
    struct registration *registration = registration_of(fd);
    if (registration != NULL) {
        epoll_ctl(registration->port->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        detach(registration);
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

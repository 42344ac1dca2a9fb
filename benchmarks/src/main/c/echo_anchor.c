/*
 * The harness's C anchor: a plain echo server on epoll, the machine's ceiling for the servers compared.
 *
 *   echo_anchor reuseport|oneshot <threads>
 *
 * reuseport: each thread has an epoll instance and a listening socket of its own, bound to one port with
 * SO_REUSEPORT, so that the kernel spreads the connections over the threads; the listening socket and the
 * connections a thread accepted stay registered level-triggered on its epoll instance.
 * oneshot: one listening socket and one epoll instance shared by the threads, every registration
 * level-triggered one-shot and re-armed after each accept round or echo.
 *
 * Both accept with accept4(SOCK_NONBLOCK | SOCK_CLOEXEC) until it would block, set TCP_NODELAY, and echo
 * with recv and send; a send that would block parks the rest and waits for EPOLLOUT. It listens on a
 * free loopback port, prints "PORT <n>", answers "gc" on its standard input with "OK 0 0" (no heap, and
 * nothing allocated per connection but a parked send's rest) and stops on "stop" or the input's end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUFFER 16384
#define EVENTS 256

/* A send's rest that would have blocked, by descriptor; only the thread holding the descriptor touches it. */
struct parked {
    char *data;
    size_t length;
};

static int oneshot;
static struct parked *parked;
static size_t descriptors;

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static int listening(unsigned short port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int on = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0) fail("socket");
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0) fail("SO_REUSEADDR");
    if (!oneshot && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) fail("SO_REUSEPORT");
    if (bind(fd, (struct sockaddr *) &address, sizeof address) != 0) fail("bind");
    if (listen(fd, 4096) != 0) fail("listen");
    return fd;
}

static unsigned short port_of(int fd) {
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *) &address, &length) != 0) fail("getsockname");
    return ntohs(address.sin_port);
}

/* Registers (add) or re-registers (modify) fd for events, one-shot in that mode. */
static void interest(int epoll, int operation, int fd, unsigned int events) {
    struct epoll_event event = {.events = events | (oneshot ? EPOLLONESHOT : 0), .data.fd = fd};
    if (epoll_ctl(epoll, operation, fd, &event) != 0) fail("epoll_ctl");
}

static void close_connection(int fd) {
    free(parked[fd].data);
    parked[fd].data = NULL;
    parked[fd].length = 0;
    close(fd);
}

static void accept_round(int epoll, int listener) {
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        int on = 1;
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EINTR) break;
            if (errno == EMFILE || errno == ENFILE) {
                perror("accept4");
                break;
            }
            fail("accept4");
        }
        if ((size_t) fd >= descriptors) {
            close(fd);
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        interest(epoll, EPOLL_CTL_ADD, fd, EPOLLIN);
    }
    if (oneshot) interest(epoll, EPOLL_CTL_MOD, listener, EPOLLIN);
}

/* Sends what it can of data; parks the rest. Returns 0 when all went, 1 when parked, -1 when the connection failed. */
static int send_or_park(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, data, length, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
            char *rest = malloc(length);
            if (rest == NULL) return -1;
            memcpy(rest, data, length);
            parked[fd].data = rest;
            parked[fd].length = length;
            return 1;
        }
        data += sent;
        length -= (size_t) sent;
    }
    return 0;
}

/* One readiness of a connection: the parked rest first when writable, else one recv and its echo. */
static void serve(int epoll, int fd, unsigned int events, char *buffer) {
    int outcome;
    if (parked[fd].data != NULL) {
        char *rest = parked[fd].data;
        size_t length = parked[fd].length;
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
            interest(epoll, EPOLL_CTL_MOD, fd, EPOLLOUT);
            return;
        }
        parked[fd].data = NULL;
        outcome = send_or_park(fd, rest, length);
        free(rest);
    }
    else {
        ssize_t received = recv(fd, buffer, BUFFER, 0);
        if (received == 0 || (received < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            close_connection(fd);
            return;
        }
        outcome = (received > 0) ? send_or_park(fd, buffer, (size_t) received) : 0;
    }
    if (outcome < 0) {
        close_connection(fd);
    }
    else if (outcome > 0) {
        interest(epoll, EPOLL_CTL_MOD, fd, EPOLLOUT);
    }
    else if (oneshot || (events & EPOLLOUT)) {
        interest(epoll, EPOLL_CTL_MOD, fd, EPOLLIN);
    }
}

struct worker {
    pthread_t thread;
    int epoll;
    int listener;
};

static void *run(void *argument) {
    struct worker *worker = argument;
    struct epoll_event events[EVENTS];
    char *buffer = malloc(BUFFER);
    if (buffer == NULL) fail("malloc");
    for (;;) {
        int ready = epoll_wait(worker->epoll, events, EVENTS, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            fail("epoll_wait");
        }
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == worker->listener) {
                accept_round(worker->epoll, fd);
            }
            else {
                serve(worker->epoll, fd, events[i].events, buffer);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    struct rlimit limit;
    char line[64];
    int threads = (argc == 3) ? atoi(argv[2]) : 0;
    if (argc != 3 || threads < 1 || (strcmp(argv[1], "reuseport") != 0 && strcmp(argv[1], "oneshot") != 0)) {
        fprintf(stderr, "usage: %s reuseport|oneshot <threads>\n", argv[0]);
        return 2;
    }
    oneshot = (strcmp(argv[1], "oneshot") == 0);
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) fail("getrlimit");
    descriptors = (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > (1u << 20)) ? (1u << 20) : limit.rlim_cur;
    parked = calloc(descriptors, sizeof *parked);
    struct worker *workers = calloc((size_t) threads, sizeof *workers);
    if (parked == NULL || workers == NULL) fail("calloc");
    unsigned short port = 0;
    for (int i = 0; i < threads; i++) {
        if (!oneshot || i == 0) {
            workers[i].epoll = epoll_create1(EPOLL_CLOEXEC);
            if (workers[i].epoll < 0) fail("epoll_create1");
            workers[i].listener = listening(port);
            port = port_of(workers[i].listener);
            interest(workers[i].epoll, EPOLL_CTL_ADD, workers[i].listener, EPOLLIN);
        }
        else {
            workers[i] = workers[0];
        }
    }
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&workers[i].thread, NULL, run, &workers[i]) != 0) fail("pthread_create");
    }
    printf("PORT %u\n", port);
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) != NULL && strncmp(line, "stop", 4) != 0) {
        if (strncmp(line, "gc", 2) == 0) {
            printf("OK 0 0\n");
            fflush(stdout);
        }
    }
    return 0;
}

/*
 * A UDP sender at a fixed rate: sendmmsg of the datagrams due every 100 microseconds (absolute
 * deadlines, so a late tick catches up), from one socket, while a second thread receives the answers.
 * The receivers answer each datagram with their running count in ASCII decimal, so the datagrams a
 * receiver took in a window are the count it answered a probe with after the window, less the count
 * it answered a probe with before, less the probes after: answers lost on the way back change nothing.
 *
 *   udp_sender <port> <datagrams a second> <size> <milliseconds>
 *
 * prints: sent <n> received <n> late_ticks <n>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS 100000L
#define MAX_BATCH 1024

static int fd;
static atomic_ullong highest;
static atomic_ullong answers;
static atomic_int stopping;

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void *drain(void *unused) {
    (void) unused;
    static char buffers[64][32];
    struct iovec in[64];
    struct mmsghdr got[64];
    struct timeval timeout = { .tv_sec = 0, .tv_usec = 100000 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    while (!atomic_load(&stopping)) {
        for (int i = 0; i < 64; i++) {
            in[i].iov_base = buffers[i];
            in[i].iov_len = sizeof buffers[i] - 1;
            memset(&got[i].msg_hdr, 0, sizeof got[i].msg_hdr);
            got[i].msg_hdr.msg_iov = &in[i];
            got[i].msg_hdr.msg_iovlen = 1;
        }
        int n = recvmmsg(fd, got, 64, MSG_WAITFORONE, NULL);
        if (n <= 0) {
            continue;
        }
        atomic_fetch_add(&answers, (unsigned long long) n);
        for (int i = 0; i < n; i++) {
            buffers[i][got[i].msg_len] = 0;
            unsigned long long value = strtoull(buffers[i], NULL, 10);
            unsigned long long seen = atomic_load(&highest);
            while (value > seen && !atomic_compare_exchange_weak(&highest, &seen, value)) {
            }
        }
    }
    return NULL;
}

static void add_ns(struct timespec *t, long ns) {
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

/* Sends one probe once the receiver is quiet and waits for the highest count to settle. */
static unsigned long long probe(struct sockaddr_in *target, int size, int *probes) {
    char datagram[2048] = { 0 };
    struct timespec pause = { .tv_sec = 0, .tv_nsec = 300000000L };
    nanosleep(&pause, NULL);
    unsigned long long before = atomic_load(&answers);
    for (int attempt = 0; attempt < 50; attempt++) {
        if (sendto(fd, datagram, (size_t) size, 0, (struct sockaddr *) target, sizeof *target) < 0) {
            die("sendto");
        }
        (*probes)++;
        struct timespec wait = { .tv_sec = 0, .tv_nsec = 100000000L };
        nanosleep(&wait, NULL);
        if (atomic_load(&answers) > before) {
            nanosleep(&pause, NULL);
            return atomic_load(&highest);
        }
    }
    fprintf(stderr, "udp_sender: the receiver answered no probe\n");
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: udp_sender <port> <datagrams a second> <size> <milliseconds>\n");
        return 2;
    }
    int port = atoi(argv[1]);
    long rate = atol(argv[2]);
    int size = atoi(argv[3]);
    long millis = atol(argv[4]);
    if (size < 1 || size > 2048 || rate < 1) {
        fprintf(stderr, "udp_sender: size 1..2048, rate positive\n");
        return 2;
    }
    prctl(PR_SET_TIMERSLACK, 1UL);
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        die("socket");
    }
    int room = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof room);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof room);
    struct sockaddr_in local = { .sin_family = AF_INET };
    inet_pton(AF_INET, "127.0.0.1", &local.sin_addr);
    if (bind(fd, (struct sockaddr *) &local, sizeof local) != 0) {
        die("bind");
    }
    struct sockaddr_in target = { .sin_family = AF_INET, .sin_port = htons((unsigned short) port) };
    inet_pton(AF_INET, "127.0.0.1", &target.sin_addr);
    pthread_t drainer;
    if (pthread_create(&drainer, NULL, drain, NULL) != 0) {
        die("pthread_create");
    }
    int probes = 0;
    unsigned long long base = probe(&target, size, &probes);

    static char payload[MAX_BATCH][2048];
    struct iovec out[MAX_BATCH];
    struct mmsghdr batch[MAX_BATCH];
    for (int i = 0; i < MAX_BATCH; i++) {
        memset(payload[i], 'x', (size_t) size);
        out[i].iov_base = payload[i];
        out[i].iov_len = (size_t) size;
        memset(&batch[i].msg_hdr, 0, sizeof batch[i].msg_hdr);
        batch[i].msg_hdr.msg_name = &target;
        batch[i].msg_hdr.msg_namelen = sizeof target;
        batch[i].msg_hdr.msg_iov = &out[i];
        batch[i].msg_hdr.msg_iovlen = 1;
    }
    long ticks = millis * 1000000L / TICK_NS;
    unsigned long long sent = 0;
    unsigned long long late = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long tick = 1; tick <= ticks; tick++) {
        /* The datagrams due by the end of this tick, less those sent: an even spread over the window. */
        unsigned long long due = (unsigned long long) ((double) rate * (double) tick * TICK_NS / 1e9);
        while (sent < due) {
            unsigned int count = (unsigned int) ((due - sent > MAX_BATCH) ? MAX_BATCH : due - sent);
            int n = sendmmsg(fd, batch, count, 0);
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                die("sendmmsg");
            }
            sent += (unsigned long long) n;
        }
        add_ns(&next, TICK_NS);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
            late++;
            continue;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    probes = 0;
    unsigned long long final = probe(&target, size, &probes);
    atomic_store(&stopping, 1);
    pthread_join(drainer, NULL);
    printf("sent %llu received %llu late_ticks %llu\n", sent, final - base - (unsigned long long) probes, late);
    return 0;
}

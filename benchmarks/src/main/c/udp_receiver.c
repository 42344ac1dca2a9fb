/*
 * The UDP limit: one thread, an edge-triggered epoll registration, recvmmsg of up to 64 datagrams a
 * call until the socket would block, each datagram counted and answered with the count in ASCII
 * decimal (as the sample's counting listener answers), the answers of one batch sent in one sendmmsg.
 *
 *   udp_receiver <port>      binds 127.0.0.1:<port>, prints "READY" once bound, runs until killed
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#define BATCH 64
#define ROOM 2048

static void die(const char *what) {
    perror(what);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: udp_receiver <port>\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        die("socket");
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((unsigned short) atoi(argv[1])) };
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    int epoll = epoll_create1(0);
    struct epoll_event event = { .events = EPOLLIN | EPOLLET, .data.fd = fd };
    if (epoll < 0 || epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0) {
        die("epoll");
    }
    if (bind(fd, (struct sockaddr *) &address, sizeof address) != 0) {
        die("bind");
    }
    printf("READY\n");
    fflush(stdout);

    static char buffers[BATCH][ROOM];
    static char answers[BATCH][24];
    struct sockaddr_in senders[BATCH];
    struct iovec in[BATCH];
    struct iovec out[BATCH];
    struct mmsghdr received[BATCH];
    struct mmsghdr sent[BATCH];
    unsigned long long count = 0;
    for (;;) {
        struct epoll_event ready;
        int n = epoll_wait(epoll, &ready, 1, -1);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("epoll_wait");
        }
        for (;;) {
            for (int i = 0; i < BATCH; i++) {
                in[i].iov_base = buffers[i];
                in[i].iov_len = ROOM;
                memset(&received[i].msg_hdr, 0, sizeof received[i].msg_hdr);
                received[i].msg_hdr.msg_name = &senders[i];
                received[i].msg_hdr.msg_namelen = sizeof senders[i];
                received[i].msg_hdr.msg_iov = &in[i];
                received[i].msg_hdr.msg_iovlen = 1;
            }
            int got = recvmmsg(fd, received, BATCH, 0, NULL);
            if (got < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    break;
                }
                if (errno == EINTR || errno == ECONNREFUSED) {
                    continue;
                }
                die("recvmmsg");
            }
            for (int i = 0; i < got; i++) {
                count++;
                int length = snprintf(answers[i], sizeof answers[i], "%llu", count);
                out[i].iov_base = answers[i];
                out[i].iov_len = (size_t) length;
                memset(&sent[i].msg_hdr, 0, sizeof sent[i].msg_hdr);
                sent[i].msg_hdr.msg_name = &senders[i];
                sent[i].msg_hdr.msg_namelen = received[i].msg_hdr.msg_namelen;
                sent[i].msg_hdr.msg_iov = &out[i];
                sent[i].msg_hdr.msg_iovlen = 1;
            }
            int done = 0;
            while (done < got) {
                int n2 = sendmmsg(fd, sent + done, (unsigned) (got - done), 0);
                if (n2 < 0) {
                    if (errno == EINTR) {
                        continue;
                    }
                    /* a full buffer or an unreachable sender: that answer is dropped, as UDP allows */
                    done++;
                    continue;
                }
                done += n2;
            }
        }
    }
}

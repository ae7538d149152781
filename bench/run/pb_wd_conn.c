/* interface flags (IFF_UP) are BSD names, outside POSIX */
#define _DEFAULT_SOURCE
/* The sockets under the watchdogs' channel (pb_wd_conn.h): which
 * addresses a listener advertises, listening, one bounded connection
 * attempt, and frames written and read whole without blocking. */
#include "pb_wd_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double pb_wd_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pb_wd_ms_left(double until)
{
    double left = until - pb_wd_now_s();
    return left <= 0.0 ? 0 : (int)(left * 1000.0) + 1;
}

void pb_wd_conn_close(pb_wd_conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->have = 0;
}

/* Writes all of buf before `until`; 0 on success. */
int pb_wd_send_all(int fd, const void *buf, size_t len, double until)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t k = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k > 0) {
            p += k;
            len -= (size_t)k;
            continue;
        }
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        struct pollfd pf = {fd, POLLOUT, 0};
        int ms = pb_wd_ms_left(until);
        if (ms == 0 || (poll(&pf, 1, ms) < 0 && errno != EINTR))
            return -1;
    }
    return 0;
}

/* Reads what is there of the current frame: 1 when it is complete (and
 * ours), 0 when more is to come, -1 when the connection is over. */
int pb_wd_conn_read(pb_wd_conn_t *c, uint64_t token)
{
    ssize_t k = recv(c->fd, c->buf + c->have, sizeof c->buf - c->have, MSG_DONTWAIT);
    if (k == 0)
        return -1;
    if (k < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    c->have += (size_t)k;
    if (c->have < sizeof c->buf)
        return 0;
    c->have = 0;
    pb_wd_frame_t f;
    memcpy(&f, c->buf, sizeof f);
    return f.magic == PB_WD_MAGIC && f.token == token ? 1 : -1;
}

/* Interfaces named in PARBENCH_WD_IFNAME (comma-separated prefixes, as
 * NCCL_SOCKET_IFNAME) or, by default, every interface but loopback and
 * container bridges, which other hosts cannot reach. */
static int want_iface(const char *name, const char *env)
{
    if (env == NULL || *env == '\0')
        return strncmp(name, "docker", 6) != 0 && strncmp(name, "virbr", 5) != 0;
    const char *p = env;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len > 0 && strncmp(name, p, len) == 0)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* This host's addresses to advertise: the chosen interfaces, then
 * loopback (which serves leaders that share one host, and the
 * simulated multi-node runs of the tests). */
static void local_addrs(pb_wd_addr_t *a)
{
    const char *env = getenv("PARBENCH_WD_IFNAME");
    struct ifaddrs *ifs = NULL;
    a->n = 0;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i && a->n < PB_WD_ADDRS - 1; i = i->ifa_next) {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
                !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK) ||
                !want_iface(i->ifa_name, env))
                continue;
            a->ip[a->n++] = ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr;
        }
        freeifaddrs(ifs);
    }
    a->ip[a->n++] = htonl(INADDR_LOOPBACK);
}

int pb_wd_listen_any(pb_wd_addr_t *a, int backlog, char *why, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, len, "socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    sa.sin_port = 0; /* any free port: several jobs may share a host */
    socklen_t sl = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        snprintf(why, len, "cannot listen on a TCP port: %s", strerror(errno));
        close(fd);
        return -1;
    }
    a->port = sa.sin_port;
    local_addrs(a);
    a->ok = 1;
    return fd;
}

/* One attempt on one address, bounded by PB_WD_TRY_MS. */
int pb_wd_try_connect(uint32_t ip, uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = ip;
    sa.sin_port = port;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        struct pollfd pf = {fd, POLLOUT, 0};
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (errno != EINPROGRESS || poll(&pf, 1, PB_WD_TRY_MS) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
            close(fd);
            return -1;
        }
    }
    int one = 1; /* frames are tiny and rare: never wait to coalesce */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

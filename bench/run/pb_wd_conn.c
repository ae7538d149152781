/* interface flags (IFF_UP) are BSD names, outside POSIX */
#define _DEFAULT_SOURCE
/* The sockets under the watchdogs' channel (pb_wd_conn.h): which
 * addresses a listener advertises and listens on, accepting children
 * that identify themselves, one bounded connection attempt, frames
 * written and read whole without blocking, and the job's token. */
#include "pb_wd_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
static void local_addrs(pb_wd_addr_t *a, const char *ifname)
{
    struct ifaddrs *ifs = NULL;
    a->n = 0;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i && a->n < PB_WD_ADDRS - 1; i = i->ifa_next) {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
                !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK) ||
                !want_iface(i->ifa_name, ifname))
                continue;
            a->ip[a->n++] = ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr;
        }
        freeifaddrs(ifs);
    }
    a->ip[a->n++] = htonl(INADDR_LOOPBACK);
}

/* A listening socket on ip:port (port 0: any free one); the socket, its
 * port in *got, or -1 with errno.  Non-blocking: accept must never wait
 * on a connection that went away between poll and accept. */
static int listen_on(uint32_t ip, uint16_t port, int backlog, uint16_t *got)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = ip;
    sa.sin_port = port;
    socklen_t sl = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *got = sa.sin_port;
    return fd;
}

void pb_wd_listen_close(pb_wd_listener_t *l)
{
    for (int k = 0; k < l->n; k++)
        close(l->fd[k]);
    l->n = 0;
}

/* The first address takes any free port (several jobs may share a host),
 * the others the same one; where that port is taken on another address,
 * the whole set starts again on a new one (a few times, then the
 * addresses that failed are left out of the advertisement, as are those
 * that vanished since getifaddrs). */
int pb_wd_listen(pb_wd_listener_t *l, pb_wd_addr_t *a, int backlog, const char *ifname,
                 char *why, size_t len)
{
    enum { TRIES = 8 };
    local_addrs(a, ifname);
    int err = 0;
    for (int attempt = 0; attempt < TRIES; attempt++) {
        uint16_t port = 0;
        uint32_t kept[PB_WD_ADDRS];
        int busy = 0;
        l->n = 0;
        for (int k = 0; k < a->n; k++) {
            uint16_t got = 0;
            int fd = listen_on(a->ip[k], port, backlog, &got);
            if (fd < 0) {
                err = errno;
                busy |= port != 0 && err == EADDRINUSE;
                continue;
            }
            port = got;
            kept[l->n] = a->ip[k];
            l->fd[l->n++] = fd;
        }
        if (busy && attempt + 1 < TRIES) {
            pb_wd_listen_close(l);
            continue;
        }
        if (l->n == 0)
            break;
        memcpy(a->ip, kept, (size_t)l->n * sizeof kept[0]);
        a->n = (uint16_t)l->n;
        a->port = port;
        a->ok = 1;
        return 0;
    }
    snprintf(why, len, "cannot listen on a TCP port: %s", strerror(err));
    return -1;
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
        double until = pb_wd_now_s() + PB_WD_TRY_MS / 1000.0;
        int soerr = 0, r = -1;
        socklen_t sl = sizeof soerr;
        /* a signal ends the wait, not the attempt */
        while (errno == EINPROGRESS || errno == EINTR) {
            struct pollfd pf = {fd, POLLOUT, 0};
            if ((r = poll(&pf, 1, pb_wd_ms_left(until))) >= 0)
                break;
        }
        if (r != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
            close(fd);
            return -1;
        }
    }
    int one = 1; /* frames are tiny and rare: never wait to coalesce */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* A connection accepted but not yet identified, and when it must be. */
typedef struct pending {
    pb_wd_conn_t c;
    double until;
} pending_t;

/* pb_wd_accept's state: every connection accepted and not yet known
 * waits here side by side, so a silent one holds up nobody. */
typedef struct accepting {
    const pb_wd_listener_t *l;
    pb_wd_conn_t *child;
    int want, got;
    uint64_t token;
    int npend;
    pending_t pend[PB_WD_PENDING];
    struct pollfd pfd[PB_WD_ADDRS + PB_WD_PENDING];
} accepting_t;

static void drop_pending(accepting_t *s, int i)
{
    pb_wd_conn_close(&s->pend[i].c);
    s->pend[i] = s->pend[--s->npend];
}

/* The poll set: the listeners (left out while every slot is taken, so
 * that new connections wait in the backlog), then the pending ones; and
 * how long to wait: until the first deadline, the set-up's or one's. */
static int poll_set(accepting_t *s, double until, int *ms)
{
    int n = 0;
    for (int k = 0; k < s->l->n; k++)
        s->pfd[n++] = (struct pollfd){s->npend < PB_WD_PENDING ? s->l->fd[k] : -1, POLLIN, 0};
    *ms = pb_wd_ms_left(until);
    for (int i = 0; i < s->npend; i++) {
        s->pfd[n++] = (struct pollfd){s->pend[i].c.fd, POLLIN, 0};
        int m = pb_wd_ms_left(s->pend[i].until);
        *ms = m < *ms ? m : *ms;
    }
    return n;
}

/* Reads what the pending connections sent: a whole HELLO of this job
 * makes a child, anything else (or nothing in time) is closed.  Goes
 * down the list, so that the one moved into a closed one's slot has been
 * served already. */
static void serve_pending(accepting_t *s)
{
    double now = pb_wd_now_s();
    for (int i = s->npend - 1; i >= 0 && s->got < s->want; i--) {
        pending_t *p = &s->pend[i];
        int r = 0;
        if (s->pfd[s->l->n + i].revents & (POLLIN | POLLHUP | POLLERR))
            r = pb_wd_conn_read(&p->c, s->token);
        pb_wd_frame_t f;
        memcpy(&f, p->c.buf, sizeof f);
        if (r == 1 && f.type == PB_WD_HELLO) {
            p->c.rank = f.origin;
            s->child[s->got++] = p->c;
            s->pend[i] = s->pend[--s->npend];
        } else if (r != 0 || now >= p->until) {
            drop_pending(s, i);
        }
    }
}

/* An accept error that ends one connection only (a signal, or the
 * peer's: Linux hands pending network errors to accept), not the next. */
static int once(int e)
{
    return e == EINTR || e == ECONNABORTED || e == EPROTO || e == EPERM || e == ENETDOWN ||
           e == ENETUNREACH || e == EHOSTUNREACH || e == EHOSTDOWN || e == ENOPROTOOPT ||
           e == EOPNOTSUPP || e == ETIMEDOUT;
}

/* Takes what the listeners' backlogs hold, while slots are free.  -1
 * with `why` on an error that would repeat on every try (no fds left):
 * retrying it would spin until the deadline. */
static int take_new(accepting_t *s, char *why, size_t len)
{
    for (int k = 0; k < s->l->n; k++) {
        if (!(s->pfd[k].revents & POLLIN))
            continue;
        while (s->npend < PB_WD_PENDING) {
            int fd = accept(s->l->fd[k], NULL, NULL);
            if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break;
            if (fd < 0 && once(errno))
                continue;
            if (fd < 0) {
                snprintf(why, len, "cannot accept the watchdog's connections: %s",
                         strerror(errno));
                return -1;
            }
            if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) { /* never into a child process */
                close(fd);
                continue;
            }
            pending_t *p = &s->pend[s->npend++];
            memset(p, 0, sizeof *p);
            p->c.fd = fd;
            p->c.rank = -1;
            p->until = pb_wd_now_s() + PB_WD_HELLO_S;
        }
    }
    return 0;
}

int pb_wd_accept(const pb_wd_listener_t *l, pb_wd_conn_t *child, int want, int *got,
                 uint64_t token, double until, char *why, size_t len)
{
    double start = pb_wd_now_s();
    accepting_t *s = calloc(1, sizeof *s); /* 17 kB: off a thread's stack */
    int rc = 0;
    *got = 0;
    if (s == NULL) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    s->l = l;
    s->child = child;
    s->want = want;
    s->token = token;
    while (rc == 0 && s->got < want) {
        int ms = 0, n = poll_set(s, until, &ms);
        if (pb_wd_ms_left(until) == 0) {
            snprintf(why, len, "only %d of %d ranks connected to this rank's watchdog within %.0f s",
                     s->got, want, until - start);
            rc = -1;
        } else if (poll(s->pfd, (nfds_t)n, ms) < 0 && errno != EINTR) {
            snprintf(why, len, "poll: %s", strerror(errno));
            rc = -1;
        } else { /* a signal (EINTR) only ends this wait: deadlines decide */
            serve_pending(s);
            if (s->got < want)
                rc = take_new(s, why, len);
        }
    }
    while (s->npend > 0)
        drop_pending(s, s->npend - 1);
    *got = s->got;
    free(s);
    return rc;
}

/* getrandom(2) behind pb_wd_rand_t's function type. */
static ssize_t sys_getrandom(void *ctx, void *buf, size_t len, unsigned flags)
{
    (void)ctx;
    return getrandom(buf, len, flags);
}

/* buf's n bytes from src->fn; 0, else -1 with errno. */
static int fill_fn(const pb_wd_rand_t *src, unsigned char *buf, size_t n)
{
    size_t have = 0;
    while (have < n) {
        ssize_t k = src->fn(src->ctx, buf + have, n - have, 0);
        if (k > 0)
            have += (size_t)k;
        else if (k == 0 || errno != EINTR) {
            if (k == 0) /* not getrandom's contract: a broken source */
                errno = EIO;
            return -1;
        }
    }
    return 0;
}

/* buf's n bytes from the file `path`; 0, else -1 with errno. */
static int fill_dev(const char *path, unsigned char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t have = 0;
    while (have < n) {
        ssize_t k = read(fd, buf + have, n - have);
        if (k > 0) {
            have += (size_t)k;
        } else if (k == 0 || errno != EINTR) {
            int e = k == 0 ? EIO : errno; /* a file that ends is no random source */
            close(fd);
            errno = e;
            return -1;
        }
    }
    close(fd);
    return 0;
}

int pb_wd_token_from(const pb_wd_rand_t *src, uint64_t *out, char *why, size_t len)
{
    unsigned char b[sizeof *out];
    if (fill_fn(src, b, sizeof b) != 0) {
        char first[96];
        snprintf(first, sizeof first, "%s", strerror(errno));
        if (fill_dev(src->dev, b, sizeof b) != 0) {
            snprintf(why, len, "no random token for the watchdog channel (getrandom: %s; %s: %s)",
                     first, src->dev, strerror(errno));
            return -1;
        }
    }
    memcpy(out, b, sizeof *out);
    return 0;
}

int pb_wd_make_token(uint64_t *out, char *why, size_t len)
{
    const pb_wd_rand_t src = {sys_getrandom, NULL, "/dev/urandom"};
    return pb_wd_token_from(&src, out, why, len);
}

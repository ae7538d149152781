/* interface flags (IFF_UP) are BSD names, outside POSIX */
#define _DEFAULT_SOURCE
#include "pb_wd_tree.h"

#include "pb_share.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PB_WD_MAGIC 0x44575042u /* "PBWD" */
#define PB_WD_ADDRS 8           /* IPv4 addresses a listener advertises */
/* Set-up deadlines: connecting (all addresses, retried) must end before
 * the parent stops accepting, so a child that cannot reach its parent
 * fails on its own clock, not the parent's. */
#define PB_WD_CONNECT_S 20.0
#define PB_WD_ACCEPT_S 30.0
#define PB_WD_TRY_MS 2000 /* one connection attempt to one address */
#define PB_WD_SEND_MS 1000

/* A listener's advertisement: what its children need to reach it. */
typedef struct wd_addr {
    uint32_t ip[PB_WD_ADDRS]; /* IPv4, network order, in the order to try */
    uint16_t port;            /* network order */
    uint16_t n;
    int32_t ok; /* 0: this leader could not listen */
} wd_addr_t;

typedef struct conn {
    int fd; /* -1: none or closed */
    int rank;
    size_t have; /* bytes of the frame being read */
    unsigned char buf[sizeof(pb_wd_frame_t)];
} conn_t;

struct pb_wd_tree {
    int rank;
    uint64_t token;
    conn_t parent;
    conn_t *child;
    int nchild;
    int scan; /* where the next read starts: no child starves another */
    struct pollfd *pfd;
};

int pb_wd_tree_parent(int li, int fanout)
{
    return li <= 0 ? -1 : (li - 1) / fanout;
}

int pb_wd_tree_first_child(int li, int fanout)
{
    return li * fanout + 1;
}

/* A positive integer from the environment, else `def` (test knobs). */
static int env_int(const char *name, int def)
{
    const char *v = getenv(name);
    char *end = NULL;
    long x = v ? strtol(v, &end, 10) : 0;
    return v && end != v && *end == '\0' && x > 0 && x < (1L << 20) ? (int)x : def;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ms_left(double until)
{
    double left = until - now_s();
    return left <= 0.0 ? 0 : (int)(left * 1000.0) + 1;
}

static void close_conn(conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->have = 0;
}

/* Writes all of buf before `until`; 0 on success. */
static int send_all(int fd, const void *buf, size_t len, double until)
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
        int ms = ms_left(until);
        if (ms == 0 || (poll(&pf, 1, ms) < 0 && errno != EINTR))
            return -1;
    }
    return 0;
}

/* Reads what is there of the current frame: 1 when it is complete (and
 * ours), 0 when more is to come, -1 when the connection is over. */
static int read_conn(conn_t *c, uint64_t token)
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
static void local_addrs(wd_addr_t *a)
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

static int listen_any(wd_addr_t *a, int backlog, char *why, size_t len)
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
static int try_connect(uint32_t ip, uint16_t port)
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

/* Connects to a parent and says who this rank is.  `local`: the parent
 * is on this node, so loopback comes first. */
static int connect_parent(pb_wd_tree_t *t, const wd_addr_t *a, int parent_rank, int local,
                          char *why, size_t len)
{
    pb_wd_frame_t hello;
    memset(&hello, 0, sizeof hello);
    hello.magic = PB_WD_MAGIC;
    hello.type = PB_WD_HELLO;
    hello.token = t->token;
    hello.origin = t->rank;
    double until = now_s() + PB_WD_CONNECT_S;
    while (now_s() < until) {
        for (int k = 0; k < a->n; k++) {
            /* local: loopback (the last address) first */
            uint32_t ip = local ? a->ip[(k + a->n - 1) % a->n] : a->ip[k];
            int fd = try_connect(ip, a->port);
            if (fd < 0)
                continue;
            if (send_all(fd, &hello, sizeof hello, now_s() + PB_WD_TRY_MS / 1000.0) == 0) {
                t->parent.fd = fd;
                t->parent.rank = parent_rank;
                return 0;
            }
            close(fd);
        }
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &a->ip[0], ip, sizeof ip);
    snprintf(why, len, "cannot connect to rank %d's watchdog (%s port %u and %d other address%s)",
             parent_rank, ip, (unsigned)ntohs(a->port), a->n - 1, a->n == 2 ? "" : "es");
    return -1;
}

/* Accepts `want` children, each identified by its HELLO. */
static int accept_children(pb_wd_tree_t *t, int lfd, int want, char *why, size_t len)
{
    double until = now_s() + PB_WD_ACCEPT_S;
    while (t->nchild < want) {
        struct pollfd pf = {lfd, POLLIN, 0};
        int ms = ms_left(until);
        if (ms == 0 || poll(&pf, 1, ms) <= 0) {
            if (errno == EINTR && ms > 0)
                continue;
            snprintf(why, len, "only %d of %d ranks connected to this rank's watchdog within %.0f s",
                     t->nchild, want, PB_WD_ACCEPT_S);
            return -1;
        }
        conn_t *c = &t->child[t->nchild];
        c->fd = accept(lfd, NULL, NULL);
        c->have = 0;
        if (c->fd < 0)
            continue;
        fcntl(c->fd, F_SETFD, FD_CLOEXEC);
        /* the HELLO follows the connection at once */
        int r = 0;
        while (r == 0) {
            struct pollfd cf = {c->fd, POLLIN, 0};
            if (poll(&cf, 1, ms_left(until)) <= 0)
                break;
            r = read_conn(c, t->token);
        }
        pb_wd_frame_t f;
        memcpy(&f, c->buf, sizeof f);
        if (r != 1 || f.type != PB_WD_HELLO) {
            close_conn(c); /* not one of ours (or too late): keep waiting */
            continue;
        }
        c->rank = f.origin;
        t->nchild++;
    }
    return 0;
}

static uint64_t make_token(void)
{
    uint64_t tok = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &tok, sizeof tok) != (ssize_t)sizeof tok)
            tok = 0;
        close(fd);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return tok ^ ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec;
}

/* Kept as one function (about 90 lines): every rank must issue the
 * set-up's MPI calls in the same order whatever failed locally (a rank
 * whose socket failed still joins each collective, or the others hang),
 * and one straight sequence is what makes that order checkable by eye. */
/* Every MPI call of the set-up, with the sockets' own work between
 * them.  Returns 0 when this rank's part worked. */
static int build(pb_wd_tree_t *t, MPI_Comm world, char *why, size_t len)
{
    int ok = 1, fanout = env_int("PARBENCH_WD_FANOUT", PB_WD_FANOUT);
    int block = env_int("PARBENCH_WD_NODE_RANKS", 0);
    MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
    if (t->rank == 0)
        t->token = make_token();
    int rc = pb_share(&t->token, (int)sizeof t->token, 0, world);
    if (rc == MPI_SUCCESS)
        rc = block ? MPI_Comm_split(world, t->rank / block, t->rank, &node)
                   : MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL,
                                         &node);
    if (rc != MPI_SUCCESS) {
        snprintf(why, len, "MPI set-up of the watchdog channel failed");
        return -1;
    }
    int lr = 0, lsize = 1, li = -1, nl = 0;
    MPI_Comm_rank(node, &lr);
    MPI_Comm_size(node, &lsize);
    if (MPI_Comm_split(world, lr == 0 ? 0 : MPI_UNDEFINED, t->rank, &leaders) != MPI_SUCCESS) {
        MPI_Comm_free(&node);
        snprintf(why, len, "MPI_Comm_split for the watchdog channel failed");
        return -1;
    }
    wd_addr_t mine, *all = NULL, up;
    memset(&mine, 0, sizeof mine);
    memset(&up, 0, sizeof up);
    int lfd = -1, want = 0, parent_rank = -1;
    int *lrank = NULL; /* leaders' world ranks */
    if (lr == 0) {
        MPI_Comm_rank(leaders, &li);
        MPI_Comm_size(leaders, &nl);
        int first = pb_wd_tree_first_child(li, fanout);
        want = lsize - 1 + (first < nl ? (nl - first < fanout ? nl - first : fanout) : 0);
        lfd = want > 0 ? listen_any(&mine, want + 16, why, len) : -1;
        ok = want == 0 || lfd >= 0;
        /* O(nodes) per leader, never O(ranks^2) */
        all = calloc((size_t)nl, sizeof *all);
        lrank = calloc((size_t)nl, sizeof *lrank);
        int have = all != NULL && lrank != NULL;
        if (!have)
            snprintf(why, len, "out of memory");
        if (MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, leaders) != MPI_SUCCESS ||
            !have ||
            MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE,
                          leaders) != MPI_SUCCESS ||
            MPI_Allgather(&t->rank, 1, MPI_INT, lrank, 1, MPI_INT, leaders) != MPI_SUCCESS)
            ok = 0;
        int p = pb_wd_tree_parent(li, fanout);
        if (ok && p >= 0) {
            up = all[p];
            parent_rank = lrank[p];
        }
        mine.ok = ok;
    }
    /* the node's ranks learn their leader's address */
    int leader_rank = t->rank;
    if (pb_share(&mine, (int)sizeof mine, 0, node) != MPI_SUCCESS ||
        pb_share(&leader_rank, (int)sizeof leader_rank, 0, node) != MPI_SUCCESS)
        ok = 0;
    if (lr > 0) {
        up = mine;
        parent_rank = leader_rank;
    }
    t->child = calloc((size_t)want + 1, sizeof *t->child);
    t->pfd = calloc((size_t)want + 3, sizeof *t->pfd);
    if (t->child == NULL || t->pfd == NULL) {
        snprintf(why, len, "out of memory");
        ok = 0;
    }
    /* connect upward first: the parent's listen backlog holds the
     * connection until it accepts, so no order between ranks is needed */
    if (ok && parent_rank >= 0) {
        if (!up.ok) {
            snprintf(why, len, "rank %d's watchdog could not listen", parent_rank);
            ok = 0;
        } else if (connect_parent(t, &up, parent_rank, lr > 0, why, len) != 0) {
            ok = 0;
        }
    }
    if (ok && lfd >= 0 && accept_children(t, lfd, want, why, len) != 0)
        ok = 0;
    if (lfd >= 0)
        close(lfd);
    free(all);
    free(lrank);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    MPI_Comm_free(&node);
    return ok ? 0 : -1;
}

/* Closes what a tree holds, not the tree itself. */
static void release(pb_wd_tree_t *t)
{
    close_conn(&t->parent);
    for (int i = 0; i < t->nchild; i++)
        close_conn(&t->child[i]);
    free(t->child);
    free(t->pfd);
}

void pb_wd_tree_open(pb_wd_tree_t **out, MPI_Comm world, char *why, size_t len)
{
    *out = NULL;
    why[0] = '\0';
    pb_wd_tree_t tmp, *t = NULL;
    memset(&tmp, 0, sizeof tmp);
    tmp.parent.fd = -1;
    MPI_Comm_rank(world, &tmp.rank);
    /* every rank takes part in every collective of the set-up, even one
     * whose own part has failed, so that none is left waiting */
    int ok = build(&tmp, world, why, len) == 0;
    if (ok && (t = malloc(sizeof *t)) == NULL) {
        snprintf(why, len, "out of memory");
        ok = 0;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, world) != MPI_SUCCESS)
        ok = 0;
    if (!ok) {
        release(&tmp);
        free(t);
        return;
    }
    *t = tmp;
    *out = t;
}

void pb_wd_tree_close(pb_wd_tree_t *t)
{
    if (t == NULL)
        return;
    release(t);
    free(t);
}

static void send_frame(conn_t *c, pb_wd_frame_t *f, uint64_t token)
{
    if (c->fd < 0)
        return;
    f->magic = PB_WD_MAGIC;
    f->token = token;
    if (send_all(c->fd, f, sizeof *f, now_s() + PB_WD_SEND_MS / 1000.0) != 0)
        close_conn(c); /* a process that cannot take one frame in a second is gone */
}

void pb_wd_tree_up(pb_wd_tree_t *t, pb_wd_frame_t *f)
{
    if (t)
        send_frame(&t->parent, f, t->token);
}

void pb_wd_tree_down(pb_wd_tree_t *t, pb_wd_frame_t *f)
{
    for (int i = 0; t && i < t->nchild; i++)
        send_frame(&t->child[i], f, t->token);
}

int pb_wd_tree_next(pb_wd_tree_t *t, int extra_fd, int timeout_ms, pb_wd_frame_t *f,
                    int *from_parent)
{
    double until = now_s() + timeout_ms / 1000.0;
    struct pollfd one;
    struct pollfd *pfd = t ? t->pfd : &one;
    for (;;) {
        /* slot 0: extra_fd; 1: parent; 2..: children (fd -1 is ignored) */
        int k = 0;
        pfd[k++] = (struct pollfd){extra_fd, POLLIN, 0};
        if (t) {
            pfd[k++] = (struct pollfd){t->parent.fd, POLLIN, 0};
            for (int i = 0; i < t->nchild; i++)
                pfd[k++] = (struct pollfd){t->child[i].fd, POLLIN, 0};
        }
        int n = poll(pfd, (nfds_t)k, ms_left(until));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        if (pfd[0].revents & POLLIN)
            return 2;
        int nconn = k - 1;
        for (int j = 0; j < nconn; j++) {
            int s = (t->scan + j) % nconn;
            if (!(pfd[s + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            conn_t *c = s == 0 ? &t->parent : &t->child[s - 1];
            int r = read_conn(c, t->token);
            if (r < 0) {
                close_conn(c);
            } else if (r == 1) {
                memcpy(f, c->buf, sizeof *f);
                f->doing[PB_WD_DOING - 1] = '\0';
                *from_parent = s == 0;
                t->scan = (s + 1) % nconn;
                return 1;
            }
        }
        if (ms_left(until) == 0)
            return 0;
    }
}

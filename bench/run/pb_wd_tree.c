/* The watchdogs' channel (pb_wd_tree.h): its shape, its set-up over the control world,
 * and frames carried up and down it.  The sockets under it are
 * pb_wd_conn.c's. */
#include "pb_wd_tree.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pb_wd_conn.h"

struct pb_wd_tree {
    int rank;
    uint64_t token;
    pb_wd_conn_t parent;
    pb_wd_conn_t *child;
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

/* Connects to a parent and says who this rank is.  `local`: the parent
 * is on this node, so loopback comes first. */
static int connect_parent(pb_wd_tree_t *t, const pb_wd_addr_t *a, int parent_rank, int local,
                          char *why, size_t len)
{
    pb_wd_frame_t hello;
    memset(&hello, 0, sizeof hello);
    hello.magic = PB_WD_MAGIC;
    hello.type = PB_WD_HELLO;
    hello.token = t->token;
    hello.origin = t->rank;
    double until = pb_wd_now_s() + PB_WD_CONNECT_S;
    while (pb_wd_now_s() < until) {
        for (int k = 0; k < a->n; k++) {
            /* local: loopback (the last address) first */
            uint32_t ip = local ? a->ip[(k + a->n - 1) % a->n] : a->ip[k];
            int fd = pb_wd_try_connect(ip, a->port);
            if (fd < 0)
                continue;
            if (pb_wd_send_all(fd, &hello, sizeof hello, pb_wd_now_s() + PB_WD_TRY_MS / 1000.0) == 0) {
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

/* What one rank's set-up learns on the way: its place on its node, the
 * socket it listens on, how many connect to it, and where its parent
 * listens. */
typedef struct setup {
    int fanout;
    int lr, lsize; /* rank and size on this node */
    pb_wd_listener_t lis; /* n 0: not listening */
    int want;             /* the connections it takes */
    int parent_rank;
    pb_wd_addr_t mine, up; /* this node's leader's address, the parent's */
} setup_t;

/* The job's token from rank 0, the node (shared memory, or blocks of
 * PARBENCH_WD_NODE_RANKS ranks), and the leaders (each node's first
 * rank).  -1 when an exchange failed or rank 0 had no token (then every
 * rank fails alike: each learns it from the same broadcast). */
static int split_world(pb_wd_tree_t *t, pb_ctl_t *world, setup_t *u, pb_ctl_t **node,
                       pb_ctl_t **leaders, char *why, size_t len)
{
    int block = env_int("PARBENCH_WD_NODE_RANKS", 0);
    struct {
        uint64_t token;
        int32_t ok;
    } tok = {0, 1};
    if (t->rank == 0 && pb_wd_make_token(&tok.token, why, len) != 0)
        tok.ok = 0;
    int rc = pb_ctl_bcast(world, &tok, sizeof tok, 0);
    if (rc == PB_OK && !tok.ok)
        return -1; /* rank 0 says why */
    t->token = tok.token;
    if (rc == PB_OK)
        rc = block ? pb_ctl_split(world, t->rank / block, t->rank, node)
                   : pb_ctl_split_node(world, node);
    if (rc != PB_OK) {
        snprintf(why, len, "the set-up of the watchdog channel failed");
        return -1;
    }
    u->lr = (*node)->rank;
    u->lsize = (*node)->size;
    if (pb_ctl_split(world, u->lr == 0 ? 0 : -1, t->rank, leaders) != PB_OK) {
        pb_ctl_free(*node);
        snprintf(why, len, "the split of the leaders for the watchdog channel failed");
        return -1;
    }
    return 0;
}

/* A leader listens for its node's ranks and its child leaders, and
 * learns every leader's address and world rank - O(nodes) per leader,
 * never O(ranks^2) - its parent's among them.  Returns 1 when its part
 * worked; joins every collective either way. */
static int leader_exchange(pb_wd_tree_t *t, pb_ctl_t *leaders, setup_t *u, char *why, size_t len)
{
    int li = leaders->rank, nl = leaders->size;
    int first = pb_wd_tree_first_child(li, u->fanout);
    u->want = u->lsize - 1 + (first < nl ? (nl - first < u->fanout ? nl - first : u->fanout) : 0);
    int ok = u->want == 0 || pb_wd_listen(&u->lis, &u->mine, u->want + 16,
                                          getenv("PARBENCH_WD_IFNAME"), why, len) == 0;
    pb_wd_addr_t *all = calloc((size_t)nl, sizeof *all);
    int *lrank = calloc((size_t)nl, sizeof *lrank); /* leaders' world ranks */
    int have = all != NULL && lrank != NULL;
    if (!have)
        snprintf(why, len, "out of memory");
    if (pb_ctl_allreduce(leaders, &have, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK || !have ||
        pb_ctl_allgather(leaders, &u->mine, all, sizeof u->mine) != PB_OK ||
        pb_ctl_allgather(leaders, &t->rank, lrank, sizeof t->rank) != PB_OK)
        ok = 0;
    int p = pb_wd_tree_parent(li, u->fanout);
    if (ok && p >= 0) {
        u->up = all[p];
        u->parent_rank = lrank[p];
    }
    u->mine.ok = ok;
    free(all);
    free(lrank);
    return ok;
}

/* The node's ranks learn their leader's address: their parent.  0 when
 * the exchange worked. */
static int share_leader(pb_wd_tree_t *t, pb_ctl_t *node, setup_t *u)
{
    int leader_rank = t->rank;
    if (pb_ctl_bcast(node, &u->mine, sizeof u->mine, 0) != PB_OK ||
        pb_ctl_bcast(node, &leader_rank, sizeof leader_rank, 0) != PB_OK)
        return -1;
    if (u->lr > 0) {
        u->up = u->mine;
        u->parent_rank = leader_rank;
    }
    return 0;
}

/* This rank's sockets (no exchange): room for its children, the connection
 * up - first: the parent's listen backlog holds it until it accepts, so
 * no order between ranks is needed - then its children accepted.
 * Returns 1 when all of it worked (nothing is tried after a failure). */
static int connect_tree(pb_wd_tree_t *t, const setup_t *u, int ok, char *why, size_t len)
{
    t->child = calloc((size_t)u->want + 1, sizeof *t->child);
    t->pfd = calloc((size_t)u->want + 3, sizeof *t->pfd);
    if (t->child == NULL || t->pfd == NULL) {
        snprintf(why, len, "out of memory");
        ok = 0;
    }
    if (ok && u->parent_rank >= 0) {
        if (!u->up.ok) {
            snprintf(why, len, "rank %d's watchdog could not listen", u->parent_rank);
            ok = 0;
        } else if (connect_parent(t, &u->up, u->parent_rank, u->lr > 0, why, len) != 0) {
            ok = 0;
        }
    }
    if (ok && u->lis.n > 0 &&
        pb_wd_accept(&u->lis, t->child, u->want, &t->nchild, t->token,
                     pb_wd_now_s() + PB_WD_ACCEPT_S, why, len) != 0)
        ok = 0;
    return ok;
}

/* The set-up in one straight sequence of steps: every rank issues the
 * same exchanges in the same order whatever failed locally (a rank whose
 * socket failed still joins each collective, or the others hang), and
 * this order is what makes that checkable by eye.  Returns 0 when this
 * rank's part worked. */
static int build(pb_wd_tree_t *t, pb_ctl_t *world, char *why, size_t len)
{
    setup_t u;
    memset(&u, 0, sizeof u);
    u.fanout = env_int("PARBENCH_WD_FANOUT", PB_WD_FANOUT);
    u.parent_rank = -1;
    pb_ctl_t *node = NULL, *leaders = NULL;
    if (split_world(t, world, &u, &node, &leaders, why, len) != 0)
        return -1;
    int ok = u.lr == 0 ? leader_exchange(t, leaders, &u, why, len) : 1;
    if (share_leader(t, node, &u) != 0)
        ok = 0;
    ok = connect_tree(t, &u, ok, why, len);
    pb_wd_listen_close(&u.lis);
    pb_ctl_free(leaders);
    pb_ctl_free(node);
    return ok ? 0 : -1;
}

/* Closes what a tree holds, not the tree itself. */
static void release(pb_wd_tree_t *t)
{
    pb_wd_conn_close(&t->parent);
    for (int i = 0; i < t->nchild; i++)
        pb_wd_conn_close(&t->child[i]);
    free(t->child);
    free(t->pfd);
}

void pb_wd_tree_open(pb_wd_tree_t **out, pb_ctl_t *world, char *why, size_t len)
{
    *out = NULL;
    why[0] = '\0';
    pb_wd_tree_t tmp, *t = NULL;
    memset(&tmp, 0, sizeof tmp);
    tmp.parent.fd = -1;
    tmp.rank = world->rank;
    /* every rank takes part in every collective of the set-up, even one
     * whose own part has failed, so that none is left waiting */
    int ok = build(&tmp, world, why, len) == 0;
    if (ok && (t = malloc(sizeof *t)) == NULL) {
        snprintf(why, len, "out of memory");
        ok = 0;
    }
    if (pb_ctl_allreduce(world, &ok, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK)
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

static void send_frame(pb_wd_conn_t *c, pb_wd_frame_t *f, uint64_t token)
{
    if (c->fd < 0)
        return;
    f->magic = PB_WD_MAGIC;
    f->token = token;
    if (pb_wd_send_all(c->fd, f, sizeof *f, pb_wd_now_s() + PB_WD_SEND_MS / 1000.0) != 0)
        pb_wd_conn_close(c); /* a process that cannot take one frame in a second is gone */
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
    double until = pb_wd_now_s() + timeout_ms / 1000.0;
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
        int n = poll(pfd, (nfds_t)k, pb_wd_ms_left(until));
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
            pb_wd_conn_t *c = s == 0 ? &t->parent : &t->child[s - 1];
            int r = pb_wd_conn_read(c, t->token);
            if (r < 0) {
                pb_wd_conn_close(c);
            } else if (r == 1) {
                memcpy(f, c->buf, sizeof *f);
                f->doing[PB_WD_DOING - 1] = '\0';
                *from_parent = s == 0;
                t->scan = (s + 1) % nconn;
                return 1;
            }
        }
        if (pb_wd_ms_left(until) == 0)
            return 0;
    }
}

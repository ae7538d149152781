#include "pb_nodemap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../topo/pb_hostlink.h"
#include "pb_gpu_map.h"

static void binding(const pb_topo_t *tp, char *buf, size_t len)
{
    buf[0] = '\0';
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set == NULL)
        return;
    /* the whole node is as good as unbound: leave it empty */
    if (hwloc_get_cpubind(tp->t, set, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(tp->t), set)) {
        int n = hwloc_bitmap_list_snprintf(buf, len, set);
        if (n < 0 || (size_t)n >= len) /* cut off: claim nothing */
            buf[0] = '\0';
    }
    hwloc_bitmap_free(set);
}

/* What a rank knows of itself before any exchange. */
typedef struct me {
    int first, local_rank, local_size, gpu;
    char host[64];
    char cpuset[256]; /* binding as an hwloc list ("0-3"); "" = unbound */
    char busid[PB_TOPO_NAME];
    char nic[PB_TOPO_NAME];
} me_t;

/* What a rank's node-mates need to classify their links to it. */
typedef struct peer {
    int gpu;
    char cpuset[256];
} peer_t;

static int local_facts(pb_ctl_t *local, int rank, const pb_topo_t *tp, me_t *me)
{
    me->local_rank = local->rank;
    me->local_size = local->size;
    /* the node's first rank names it (the split is keyed by rank, so
     * local rank 0 is the lowest) */
    me->first = me->local_rank == 0 ? rank : 0;
    if (pb_ctl_allreduce(local, &me->first, 1, PB_CTL_INT, PB_CTL_MAX) != PB_OK)
        return -1;
    pb_ctl_host(local, me->host, sizeof me->host);
    binding(tp, me->cpuset, sizeof me->cpuset);
    me->gpu = pb_gpu_map_local(tp, me->local_rank);
    snprintf(me->busid, sizeof me->busid, "-");
    snprintf(me->nic, sizeof me->nic, "-");
    if (me->gpu >= 0) {
        snprintf(me->busid, sizeof me->busid, "%s", tp->gpus[me->gpu].busid);
        int n = pb_topo_nearest_nic(tp, me->gpu);
        if (n >= 0)
            snprintf(me->nic, sizeof me->nic, "%s", tp->nics[n].name);
    }
    return 0;
}

/* A link between two ranks of this node, classified here, where both
 * ranks' hardware is known. */
static pb_link_t classify(const pb_topo_t *tp, const peer_t *a, const peer_t *b,
                          hwloc_bitmap_t sa, hwloc_bitmap_t sb)
{
    if (a->gpu >= 0 && b->gpu >= 0)
        return pb_topo_gpu_gpu(tp, a->gpu, b->gpu);
    if (hwloc_bitmap_list_sscanf(sa, a->cpuset) != 0)
        hwloc_bitmap_zero(sa);
    if (hwloc_bitmap_list_sscanf(sb, b->cpuset) != 0)
        hwloc_bitmap_zero(sb);
    return (pb_link_t){pb_hostlink_class(tp->t, sa, sb), 0};
}

/* My row: my links to every rank of my node, from their GPUs and
 * bindings (an all-gather within the node: local_size x 260 B). */
static int my_row(pb_ctl_t *local, const pb_topo_t *tp, const me_t *me, int *row)
{
    int l = me->local_size, code = -1;
    peer_t mine, *all = calloc((size_t)l, sizeof *all);
    memset(&mine, 0, sizeof mine);
    mine.gpu = me->gpu;
    snprintf(mine.cpuset, sizeof mine.cpuset, "%s", me->cpuset);
    hwloc_bitmap_t sa = hwloc_bitmap_alloc(), sb = hwloc_bitmap_alloc();
    int ok = all && sa && sb;
    /* all or none: a rank short of memory must not leave the others waiting */
    if (pb_ctl_allreduce(local, &ok, 1, PB_CTL_INT, PB_CTL_MIN) == PB_OK && ok &&
        pb_ctl_allgather(local, &mine, all, sizeof mine) == PB_OK) {
        for (int j = 0; j < l; j++)
            row[j] = pb_link_rank(classify(tp, &all[me->local_rank], &all[j], sa, sb));
        code = 0;
    }
    if (sa)
        hwloc_bitmap_free(sa);
    if (sb)
        hwloc_bitmap_free(sb);
    free(all);
    return code;
}

/* The world exchange: a fixed header per rank, then a payload of its
 * row (local_size ints) and labels ("host\0cpuset\0busid\0nic\0", the
 * host from a node's first rank only), padded to whole ints so that
 * every row stays aligned. */
enum { H_FIRST, H_LOCAL, H_LSIZE, H_GPU, H_LEN, H_N };

typedef struct gathered {
    const int *head; /* H_N per rank */
    const char *buf; /* rank r's payload at r x block */
    size_t block;
} gathered_t;

static void fact_of(const void *ctx, int r, pb_rank_fact_t *f)
{
    const gathered_t *g = ctx;
    const int *h = g->head + (size_t)r * H_N;
    const char *p = g->buf + (size_t)r * g->block;
    f->first = h[H_FIRST];
    f->local_rank = h[H_LOCAL];
    f->local_size = h[H_LSIZE];
    f->gpu = h[H_GPU];
    f->row = (const int *)(const void *)p;
    f->host = p + (size_t)h[H_LSIZE] * sizeof(int);
    f->cpuset = f->host + strlen(f->host) + 1;
    f->busid = f->cpuset + strlen(f->cpuset) + 1;
    f->nic = f->busid + strlen(f->busid) + 1;
}

/* My payload into out (at least payload_len(me) bytes). */
static int payload(const me_t *me, const int *row, char *out)
{
    size_t used = (size_t)me->local_size * sizeof(int);
    memcpy(out, row, used);
    const char *s[4] = {me->local_rank == 0 ? me->host : "", me->cpuset, me->busid, me->nic};
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(s[i]) + 1;
        memcpy(out + used, s[i], n);
        used += n;
    }
    while (used % sizeof(int))
        out[used++] = '\0';
    return (int)used;
}

/* Every rank's payload goes out padded to the longest, through one
 * all-gather, rather than at its own length through an all-gather-v.
 * Why: the node's first rank carries the host name and the others do not,
 * so an all-gather-v sends more bytes one way than the other between the
 * same two ranks.  In Open MPI's shared-memory transport that leaves the
 * two directions' fast-box rings at different offsets for the rest of the
 * run, and every later small exchange between the two then pays for it
 * (collectives/pb_ctl_mpi.c: 8-13 % on an 8 B all-reduce).  Equal blocks keep
 * each pair's traffic the same both ways, as a plain benchmark's is. */
static int exchange(pb_ctl_t *world, const me_t *me, const int *row, pb_nodemap_t *m,
                    pb_err_t *err)
{
    int rank = world->rank, size = world->size;
    char *mine = NULL;
    int *head = calloc((size_t)size * H_N, sizeof *head);
    char *buf = NULL;
    int code = PB_OK, rc = PB_ERUNTIME, block = 0;
    size_t cap = (size_t)me->local_size * sizeof(int) + sizeof *me + 8;
    if (head != NULL)
        mine = malloc(cap);
    /* the header exchange, all or none (a rank short of memory joins it
     * with a flag, so that no rank waits alone) */
    int ok = head != NULL && mine != NULL;
    if (pb_ctl_allreduce(world, &ok, 1, PB_CTL_INT, PB_CTL_MIN) == PB_OK && ok) {
        int h[H_N] = {me->first, me->local_rank, me->local_size, me->gpu, 0};
        h[H_LEN] = payload(me, row, mine);
        rc = pb_ctl_allgather(world, h, head, sizeof h);
    }
    for (int r = 0; rc == PB_OK && r < size; r++)
        if (head[(size_t)r * H_N + H_LEN] > block)
            block = head[(size_t)r * H_N + H_LEN];
    if (rc == PB_OK && (long long)block * size > INT_MAX)
        rc = PB_ERUNTIME; /* an MPI call's receive count is an int */
    if (rc == PB_OK && (size_t)block > cap) {
        char *grown = realloc(mine, (size_t)block);
        rc = grown ? PB_OK : PB_ERUNTIME;
        mine = grown ? grown : mine;
    }
    if (rc == PB_OK) {
        memset(mine + head[(size_t)rank * H_N + H_LEN], 0,
               (size_t)(block - head[(size_t)rank * H_N + H_LEN]));
        if ((buf = malloc((size_t)block * (size_t)size + 1)) == NULL)
            rc = PB_ERUNTIME;
    }
    /* all or none enter the all-gather: a rank short of memory must not
     * leave the others waiting in it */
    ok = rc == PB_OK;
    if (pb_ctl_allreduce(world, &ok, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK || !ok)
        rc = PB_ERUNTIME;
    if (rc == PB_OK)
        rc = pb_ctl_allgather(world, mine, buf, (uint64_t)block);
    if (rc != PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "cannot exchange the node map");
    if (code == PB_OK) {
        gathered_t g = {head, buf, (size_t)block};
        code = pb_rankmap_init(m, size, fact_of, &g, err);
    }
    free(mine);
    free(head);
    free(buf);
    return code;
}

int pb_nodemap_build(pb_ctl_t *world, const pb_topo_t *tp, pb_nodemap_t *m, pb_err_t *err)
{
    memset(m, 0, sizeof *m);
    me_t me;
    memset(&me, 0, sizeof me);
    int code = PB_OK, *row = NULL;
    pb_ctl_t *local = NULL;
    if (pb_ctl_split_node(world, &local) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "cannot split the world by node");
    if (local_facts(local, world->rank, tp, &me) != 0)
        code = pb_err_set(err, PB_ERUNTIME, "cannot number the nodes");
    else if ((row = calloc((size_t)me.local_size, sizeof *row)) == NULL)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory building the node map");
    else if (my_row(local, tp, &me, row) != 0)
        code = pb_err_set(err, PB_ERUNTIME, "cannot classify the links on this node");
    pb_ctl_free(local);
    /* every rank takes part in the collectives below, failed or not, so
     * nobody waits alone; a failure is reported by the caller's agree */
    int bad = code != PB_OK;
    if (pb_ctl_allreduce(world, &bad, 1, PB_CTL_INT, PB_CTL_MAX) != PB_OK)
        bad = 1;
    if (bad && code == PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "building the node map failed on another rank");
    if (!bad)
        code = exchange(world, &me, row, m, err);
    free(row);
    return code;
}

void pb_nodemap_free(pb_nodemap_t *m)
{
    pb_rankmap_free(m);
}

pb_link_t pb_nodemap_link(const void *map, int a, int b)
{
    return pb_rankmap_link(map, a, b);
}

pb_link_t pb_nodemap_groups_slowest(const pb_nodemap_t *m, pb_group_of_fn group_of,
                                    const void *ctx)
{
    return pb_rankmap_groups_slowest(m, group_of, ctx);
}

static int block_of(const void *k, int rank)
{
    return rank / *(const int *)k;
}

pb_link_t pb_nodemap_block_slowest(const pb_nodemap_t *m, int k)
{
    if (k <= 0 || k > m->size)
        k = m->size;
    return pb_nodemap_groups_slowest(m, block_of, &k);
}

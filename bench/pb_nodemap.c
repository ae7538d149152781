#include "pb_nodemap.h"

#include <stdlib.h>
#include <string.h>

#include "../topo/pb_hostlink.h"
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

static int local_facts(MPI_Comm world, const pb_topo_t *tp, pb_rank_info_t *me, pb_err_t *err)
{
    int rank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm local;
    if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local) !=
        MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "cannot split the world by node");
    MPI_Comm_rank(local, &me->local_rank);
    MPI_Comm_size(local, &me->local_size);
    /* node number: the leaders (local rank 0) before this node's leader,
     * in rank order.  An all-gather of one flag per rank rather than an
     * exclusive scan and a broadcast: those send one way only, which
     * would bias every later small-message time (pb_share.h) */
    int size = 0;
    MPI_Comm_size(world, &size);
    int leader = me->local_rank == 0, before = 0, mine_first = leader ? rank : 0;
    int *flags = calloc((size_t)size, sizeof *flags);
    int rc = flags ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgather(&leader, 1, MPI_INT, flags, 1, MPI_INT, world);
    /* the node's leader is its lowest rank (the split is keyed by rank) */
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(MPI_IN_PLACE, &mine_first, 1, MPI_INT, MPI_MAX, local);
    for (int r = 0; rc == MPI_SUCCESS && r < mine_first; r++)
        before += flags[r];
    free(flags);
    MPI_Comm_free(&local);
    if (rc != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "cannot number the nodes");
    me->node = before;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(name, &len);
    snprintf(me->host, sizeof me->host, "%.*s", (int)sizeof me->host - 1, name);
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
    return PB_OK;
}

/* My row: links are classified where both ranks' hardware is known, on
 * the node they share. */
static pb_link_t classify(const pb_topo_t *tp, const pb_rank_info_t *a, const pb_rank_info_t *b,
                          hwloc_bitmap_t sa, hwloc_bitmap_t sb)
{
    pb_link_t l = {PB_LINK_NET, 0};
    if (a->node != b->node)
        return l;
    if (a->gpu >= 0 && b->gpu >= 0)
        return pb_topo_gpu_gpu(tp, a->gpu, b->gpu);
    if (hwloc_bitmap_list_sscanf(sa, a->cpuset) != 0)
        hwloc_bitmap_zero(sa);
    if (hwloc_bitmap_list_sscanf(sb, b->cpuset) != 0)
        hwloc_bitmap_zero(sb);
    l.cls = pb_hostlink_class(tp->t, sa, sb);
    return l;
}

int pb_nodemap_build(MPI_Comm world, const pb_topo_t *tp, pb_nodemap_t *m, pb_err_t *err)
{
    memset(m, 0, sizeof *m);
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    m->size = size;
    pb_rank_info_t me;
    memset(&me, 0, sizeof me);
    int code = local_facts(world, tp, &me, err);
    m->ranks = calloc((size_t)size, sizeof *m->ranks);
    m->link = calloc((size_t)size * (size_t)size, sizeof *m->link);
    int *row = calloc((size_t)size, sizeof *row);
    hwloc_bitmap_t sa = hwloc_bitmap_alloc(), sb = hwloc_bitmap_alloc();
    if (code == PB_OK && (m->ranks == NULL || m->link == NULL || row == NULL || !sa || !sb))
        code = pb_err_set(err, PB_ERUNTIME, "out of memory building the node map");
    /* every rank takes part in the collectives below, failed or not, so
     * nobody waits alone; a failure is reported by the caller's agree */
    int bad = code != PB_OK;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world);
    if (bad) {
        if (code == PB_OK)
            code = pb_err_set(err, PB_ERUNTIME, "building the node map failed on another rank");
        goto out;
    }
    if (MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, m->ranks, (int)sizeof me, MPI_BYTE,
                      world) != MPI_SUCCESS) {
        code = pb_err_set(err, PB_ERUNTIME, "cannot exchange the node map");
        goto out;
    }
    for (int j = 0; j < size; j++)
        row[j] = pb_link_rank(classify(tp, &m->ranks[rank], &m->ranks[j], sa, sb));
    if (MPI_Allgather(row, size, MPI_INT, m->link, size, MPI_INT, world) != MPI_SUCCESS) {
        code = pb_err_set(err, PB_ERUNTIME, "cannot exchange link classes");
        goto out;
    }
    for (int r = 0; r < size; r++)
        if (m->ranks[r].node + 1 > m->nnodes)
            m->nnodes = m->ranks[r].node + 1;
out:
    free(row);
    if (sa)
        hwloc_bitmap_free(sa);
    if (sb)
        hwloc_bitmap_free(sb);
    if (code != PB_OK)
        pb_nodemap_free(m);
    return code;
}

void pb_nodemap_free(pb_nodemap_t *m)
{
    free(m->ranks);
    free(m->link);
    m->ranks = NULL;
    m->link = NULL;
}

pb_link_t pb_nodemap_link(const void *map, int a, int b)
{
    const pb_nodemap_t *m = map;
    /* the row of the lower rank: both rows agree on one node, and
     * across nodes both say NET */
    return pb_link_from_rank(m->link[(size_t)a * (size_t)m->size + (size_t)b]);
}

pb_link_t pb_nodemap_groups_slowest(const pb_nodemap_t *m, pb_group_of_fn group_of,
                                    const void *ctx)
{
    pb_link_t worst = {PB_LINK_SELF, 0};
    for (int a = 0; a < m->size; a++) {
        int g = group_of(ctx, a);
        for (int b = a + 1; b < m->size; b++) {
            if (group_of(ctx, b) != g)
                continue;
            worst = pb_link_slower(worst, pb_nodemap_link(m, a, b));
            if (worst.cls == PB_LINK_NET) /* nothing is slower */
                return worst;
        }
    }
    return worst;
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

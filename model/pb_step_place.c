/* Where a layout's groups lie on nodes of gpus_per_node GPUs, ranks
 * numbered node by node (pb_step.h): whether a group spans nodes, and how
 * many of its members share one. */
#include "pb_step.h"

/* HSDP's groups inside the data-parallel group, whose members fill
 * nodes `in` at a time in group order (consecutive members first): a
 * shard group of s consecutive ones, a replica group of every s-th.
 * *per_node: one group's members in a node; returns 1 when it spans
 * nodes. */
static int hsdp_place(const pb_layout_t *l, pb_gkind_t k, int in, int *per_node)
{
    int d = pb_layout_group_size(l, PB_GK_DP), n = pb_layout_group_size(l, k);
    int s = k == PB_GK_SHARD ? n : d / n; /* the shard group's size */
    if (k == PB_GK_SHARD) {
        *per_node = s < in ? s : in;
        return s > in;
    }
    *per_node = in >= d ? n : in > s ? in / s : 1;
    return n > *per_node;
}

int pb_step_group_net(const pb_layout_t *l, pb_gkind_t k, int gpus_per_node)
{
    if (k == PB_GK_SHARD || k == PB_GK_REPL) {
        int per;
        return hsdp_place(l, k, pb_step_group_per_node(l, PB_GK_DP, gpus_per_node), &per);
    }
    /* The span of a group is the stride of its outermost dimension times
     * that dimension's size: everything up to there, in rank order, in
     * the group's view (dense, or expert for EP and EDP). */
    int sz[PB_DIM_COUNT];
    pb_layout_view_sizes(l, k, sz);
    unsigned dims = pb_layout_group_dims(k);
    long span = 1, reach = 1;
    for (int i = 0; i < PB_DIM_COUNT; i++) {
        pb_dim_t d = l->order[i];
        span *= sz[d];
        if (dims & 1u << d)
            reach = span;
    }
    return reach > gpus_per_node;
}

int pb_step_group_per_node(const pb_layout_t *l, pb_gkind_t k, int gpus_per_node)
{
    if (k == PB_GK_SHARD || k == PB_GK_REPL) {
        int per;
        hsdp_place(l, k, pb_step_group_per_node(l, PB_GK_DP, gpus_per_node), &per);
        return per;
    }
    int sz[PB_DIM_COUNT];
    pb_layout_view_sizes(l, k, sz);
    unsigned dims = pb_layout_group_dims(k);
    long span = 1, in = 1;
    for (int i = 0; i < PB_DIM_COUNT && span < gpus_per_node; i++) {
        pb_dim_t d = l->order[i];
        long fits = gpus_per_node / span, take = sz[d] < fits ? sz[d] : fits;
        if (dims & 1u << d)
            in *= take;
        span *= sz[d];
    }
    return (int)in;
}

#include "pb_layout.h"

#include "pb_stages.h"

#include <stdio.h>
#include <string.h>

static const char *const dim_names[PB_DIM_COUNT] = {"tp", "cp", "ep", "dp", "pp"};

void pb_layout_default(pb_layout_t *l)
{
    memset(l, 0, sizeof *l);
    for (int d = 0; d < PB_DIM_COUNT; d++) {
        l->size[d] = 1;
        l->order[d] = (pb_dim_t)d;
    }
    l->vp = 1;
}

int pb_layout_parse_order(pb_layout_t *l, const char *s, pb_err_t *err)
{
    pb_dim_t order[PB_DIM_COUNT];
    int seen[PB_DIM_COUNT] = {0}, n = 0;
    const char *p = s;
    while (*p) {
        size_t len = strcspn(p, "-");
        int d = -1;
        for (int i = 0; i < PB_DIM_COUNT; i++)
            if (len == 2 && strncmp(p, dim_names[i], 2) == 0)
                d = i;
        if (d < 0 || seen[d] || n == PB_DIM_COUNT)
            break;
        seen[d] = 1;
        order[n++] = (pb_dim_t)d;
        p += len;
        if (*p == '-' && p[1] != '\0')
            p++;
        else if (*p == '-')
            break;
    }
    if (*p != '\0' || n != PB_DIM_COUNT)
        return pb_err_set(err, PB_EINPUT,
                          "--order '%s' must name tp, cp, ep, dp and pp once each, joined by '-'",
                          s);
    memcpy(l->order, order, sizeof order);
    return PB_OK;
}

void pb_layout_order_str(const pb_layout_t *l, char *buf, int len)
{
    snprintf(buf, (size_t)len, "%s-%s-%s-%s-%s", dim_names[l->order[0]], dim_names[l->order[1]],
             dim_names[l->order[2]], dim_names[l->order[3]], dim_names[l->order[4]]);
}

uint64_t pb_layout_world(const pb_layout_t *l)
{
    return (uint64_t)l->size[PB_DIM_TP] * (uint64_t)l->size[PB_DIM_CP] *
           (uint64_t)l->size[PB_DIM_DP] * (uint64_t)l->size[PB_DIM_PP];
}

#define ULL(x) ((unsigned long long)(x))

/* HSDP's shard group (pb_layout_t shard): a real cut of the data-
 * parallel group, and a dense model */
static int check_shard(const pb_layout_t *l, const pb_model_t *m, pb_err_t *err)
{
    int dp = l->size[PB_DIM_DP], cp = l->size[PB_DIM_CP];
    if (l->shard == 1)
        return pb_err_set(err, PB_EINPUT,
                          "--shard-group 1 shards nothing: every rank holds the whole model, "
                          "as --zero 0 (plain data parallelism)");
    if (l->shard < 0 || (l->shard > 0 && (dp * cp) % l->shard != 0))
        return pb_err_set(err, PB_EINPUT,
                          "--shard-group %d does not divide the data-parallel group (cp x dp = %d)",
                          l->shard, dp * cp);
    /* torchtitan puts the routed experts on their own FSDP mesh (dp_shard
     * in ep); how that mesh is cut with a replicate dimension is not
     * modelled */
    if (l->shard > 0 && m->experts > 0)
        return pb_err_set(err, PB_EINPUT,
                          "--shard-group (HSDP) with a mixture-of-experts model is not "
                          "modelled: leave one of them out");
    return PB_OK;
}

int pb_layout_check(const pb_layout_t *l, const pb_model_t *m, uint64_t world, pb_err_t *err)
{
    int tp = l->size[PB_DIM_TP], cp = l->size[PB_DIM_CP], ep = l->size[PB_DIM_EP];
    int dp = l->size[PB_DIM_DP], pp = l->size[PB_DIM_PP];
    uint64_t w = pb_layout_world(l);
    if (world > 0 && w != world)
        return pb_err_set(err, PB_EINPUT,
                          "layout tp %d x cp %d x dp %d x pp %d = %llu ranks, but the world has %llu",
                          tp, cp, dp, pp, ULL(w), ULL(world));
    if (w > (uint64_t)1 << 30)
        return pb_err_set(err, PB_EINPUT, "layout of %llu ranks is too large", ULL(w));
    if (l->etp > 0 && ((uint64_t)tp * cp * dp) % ((uint64_t)l->etp * ep) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "--etp %d x --ep %d does not divide tp x cp x dp = %d (MoE parallel "
                          "folding carves the expert groups out of them)",
                          l->etp, ep, tp * cp * dp);
    if (l->etp == 0 && ((uint64_t)dp * (uint64_t)cp) % (uint64_t)ep != 0)
        return pb_err_set(err, PB_EINPUT,
                          "--ep %d does not divide dp x cp = %d: experts are spread over data-parallel ranks "
                          "(--etp 1 folds them out of tp x cp x dp)",
                          ep, dp * cp);
    if (ep > 1 && m->experts == 0)
        return pb_err_set(err, PB_EINPUT,
                          "--ep %d needs a mixture-of-experts model: give --experts E --topk K "
                          "(Mixtral 8x7B: 8 and 2), or --preset mixtral-8x7b or deepseek-v3",
                          ep);
    if (m->experts > 0 && m->experts % (uint64_t)ep != 0)
        return pb_err_set(err, PB_EINPUT, "experts %llu are not divisible by --ep %d",
                          ULL(m->experts), ep);
    if (l->sp && tp < 2)
        return pb_err_set(err, PB_EINPUT, "--sp (sequence parallelism) needs --tp above 1");
    /* Megatron-Core's MoELayer.forward raises ValueError while training
     * when the attention's TP group is larger than 1 and sequence
     * parallelism is off (megatron/core/transformer/moe/moe_layer.py):
     * every TP rank would route and dispatch the whole sequence, tp times
     * the tokens of the run Megatron allows */
    if (m->experts > 0 && tp > 1 && !l->sp)
        return pb_err_set(err, PB_EINPUT,
                          "a mixture-of-experts model with --tp %d needs --sp (sequence "
                          "parallelism): Megatron-Core refuses MoE with tensor parallelism "
                          "without it",
                          tp);
    if (m->heads % (uint64_t)tp != 0)
        return pb_err_set(err, PB_EINPUT, "heads %llu are not divisible by --tp %d",
                          ULL(m->heads), tp);
    if (m->kv_heads % (uint64_t)tp != 0)
        return pb_err_set(err, PB_EINPUT, "kv_heads %llu are not divisible by --tp %d",
                          ULL(m->kv_heads), tp);
    if (l->vp > 1 && pp < 2)
        return pb_err_set(err, PB_EINPUT, "--vp %d (interleaving) needs --pp above 1", l->vp);
    pb_stages_t st; /* every stage's layers divide as Megatron requires */
    if (pb_stages_split(m, pp, l->vp, &st, err) != PB_OK)
        return err->code;
    if (cp > 1 && m->seq % (2 * (uint64_t)cp) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "sequence %llu is not divisible by 2 x cp = %d (load-balanced context chunks)",
                          ULL(m->seq), 2 * cp);
    if (l->sp && (m->seq / (uint64_t)cp) % (uint64_t)tp != 0)
        return pb_err_set(err, PB_EINPUT,
                          "sequence %llu / cp %d is not divisible by --tp %d, as --sp needs",
                          ULL(m->seq), cp, tp);
    if (check_shard(l, m, err) != PB_OK)
        return err->code;
    if (m->gbs > 0 && m->gbs % (m->mbs * (uint64_t)dp) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "global batch %llu is not divisible by micro-batch %llu x dp %d",
                          ULL(m->gbs), ULL(m->mbs), dp);
    return PB_OK;
}

int pb_layout_dp_shard(const pb_layout_t *l)
{
    return l->shard > 0 ? l->shard : l->size[PB_DIM_CP] * l->size[PB_DIM_DP];
}

/* in the expert view the cp slot is 1, the tp slot holds etp and the dp
 * slot edp */
int pb_layout_etp(const pb_layout_t *l)
{
    return l->etp > 0 ? l->etp : l->size[PB_DIM_TP];
}

void pb_layout_view_sizes(const pb_layout_t *l, pb_gkind_t k, int *sz)
{
    for (int d = 0; d < PB_DIM_COUNT; d++)
        sz[d] = l->size[d];
    if (k == PB_GK_EP || k == PB_GK_EDP) {
        /* Megatron-Core's expert RankGenerator(tp=etp, ep, dp=edp, pp, cp=1) */
        int etp = pb_layout_etp(l);
        sz[PB_DIM_DP] = l->size[PB_DIM_TP] * l->size[PB_DIM_CP] * l->size[PB_DIM_DP] /
                        (etp * l->size[PB_DIM_EP]);
        sz[PB_DIM_TP] = etp;
        sz[PB_DIM_CP] = 1;
    } else {
        sz[PB_DIM_EP] = 1;
    }
}

unsigned pb_layout_group_dims(pb_gkind_t k)
{
    switch (k) {
    case PB_GK_TP:
        return 1u << PB_DIM_TP;
    case PB_GK_CP:
        return 1u << PB_DIM_CP;
    case PB_GK_DP:
    case PB_GK_SHARD:
    case PB_GK_REPL:
        return 1u << PB_DIM_CP | 1u << PB_DIM_DP;
    case PB_GK_PP:
        return 1u << PB_DIM_PP;
    case PB_GK_EP:
        return 1u << PB_DIM_EP;
    case PB_GK_EDP:
        return 1u << PB_DIM_DP;
    case PB_GK_COUNT:
        break;
    }
    return 0;
}

int pb_layout_group_size(const pb_layout_t *l, pb_gkind_t k)
{
    if (k == PB_GK_SHARD || k == PB_GK_REPL) {
        int d = l->size[PB_DIM_CP] * l->size[PB_DIM_DP];
        if (l->shard <= 0 || l->shard > d)
            return 1;
        return k == PB_GK_SHARD ? l->shard : d / l->shard;
    }
    int sz[PB_DIM_COUNT], n = 1;
    pb_layout_view_sizes(l, k, sz);
    unsigned mask = pb_layout_group_dims(k);
    for (int d = 0; d < PB_DIM_COUNT; d++)
        if (mask & (1u << d))
            n *= sz[d];
    return n;
}

/* Rank's coordinates in the view of kind k, each dimension's stride. */
static void coords(const pb_layout_t *l, pb_gkind_t k, int rank, int *sz, int *coord,
                   int *stride)
{
    pb_layout_view_sizes(l, k, sz);
    int s = 1;
    for (int i = 0; i < PB_DIM_COUNT; i++) {
        pb_dim_t d = l->order[i];
        stride[d] = s;
        coord[d] = (rank / s) % sz[d];
        s *= sz[d];
    }
}

/* The j-th member of rank's group of kind k (not SHARD or REPL): the
 * rank with rank's outside coordinates and the inside ones of j. */
static int member(const pb_layout_t *l, pb_gkind_t k, int rank, int j)
{
    int sz[PB_DIM_COUNT], coord[PB_DIM_COUNT], stride[PB_DIM_COUNT];
    coords(l, k, rank, sz, coord, stride);
    unsigned mask = pb_layout_group_dims(k);
    int r = rank, rest = j;
    for (int i = 0; i < PB_DIM_COUNT; i++) {
        pb_dim_t d = l->order[i];
        if (mask & (1u << d)) {
            r += (rest % sz[d] - coord[d]) * stride[d];
            rest /= sz[d];
        }
    }
    return r;
}

/* HSDP's groups, cut out of rank's data-parallel group: a shard group
 * is `shard` consecutive members of it, a replica group every shard-th
 * (FSDP's HYBRID_SHARD, FSDP2 on init_device_mesh(("replicate",
 * "shard")): the shard dimension innermost). */
static void hsdp_group(const pb_layout_t *l, pb_gkind_t k, int rank, int *group_id, int *index,
                       int *members)
{
    int d = pb_layout_group_size(l, PB_GK_DP), gid, idx;
    int s = k == PB_GK_SHARD ? pb_layout_group_size(l, k) : d / pb_layout_group_size(l, k);
    int r = d / s; /* shard groups per DP group */
    pb_layout_group(l, PB_GK_DP, rank, &gid, &idx, NULL);
    int block = idx / s, within = idx % s;
    if (k == PB_GK_SHARD)
        *group_id = gid * r + block, *index = within;
    else
        *group_id = gid * s + within, *index = block;
    int n = k == PB_GK_SHARD ? s : r;
    for (int j = 0; members && j < n; j++)
        members[j] = member(l, PB_GK_DP, rank, k == PB_GK_SHARD ? block * s + j : j * s + within);
}

void pb_layout_group(const pb_layout_t *l, pb_gkind_t k, int rank, int *group_id, int *index,
                     int *members)
{
    if (k == PB_GK_SHARD || k == PB_GK_REPL) {
        hsdp_group(l, k, rank, group_id, index, members);
        return;
    }
    int sz[PB_DIM_COUNT], coord[PB_DIM_COUNT], stride[PB_DIM_COUNT];
    coords(l, k, rank, sz, coord, stride);
    unsigned mask = pb_layout_group_dims(k);
    /* group id: the outside coordinates, index: the inside ones, both
     * mixed-radix in the order (first fastest) */
    int gid = 0, gmul = 1, idx = 0, imul = 1;
    for (int i = 0; i < PB_DIM_COUNT; i++) {
        pb_dim_t d = l->order[i];
        if (mask & (1u << d)) {
            idx += coord[d] * imul;
            imul *= sz[d];
        } else {
            gid += coord[d] * gmul;
            gmul *= sz[d];
        }
    }
    *group_id = gid;
    *index = idx;
    for (int j = 0; members && j < imul; j++)
        members[j] = member(l, k, rank, j);
}

int pb_layout_coord(const pb_layout_t *l, int rank, pb_dim_t d)
{
    int sz[PB_DIM_COUNT];
    pb_layout_view_sizes(l, d == PB_DIM_EP ? PB_GK_EP : PB_GK_TP, sz);
    int s = 1;
    for (int i = 0; i < PB_DIM_COUNT; i++) {
        pb_dim_t e = l->order[i];
        if (e == d)
            return (rank / s) % sz[e];
        s *= sz[e];
    }
    return 0;
}

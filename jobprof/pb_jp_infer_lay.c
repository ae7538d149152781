/* pb_jp_infer_lay.c - the communicators matched with a given layout's
 * groups, and the layout checked against the recording (rules:
 * pb_jp_infer.h, pb_jp_infer_layout and pb_jp_infer). */
#include "pb_jp_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_infer_priv.h"

#define BIT(d) (1u << (d))

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The sorted world ranks of the group spanning the dimensions in `mask`
 * that holds `rank`, in the dense view or the expert one (Megatron's
 * generate_masked_orthogonal_rank_groups for one group); its size, or -1
 * when over cap. */
static int group_of(const pb_layout_t *l, int expert, unsigned mask, int rank, int *out, int cap)
{
    int sz[PB_DIM_COUNT], stride[PB_DIM_COUNT], coord[PB_DIM_COUNT], s = 1, n = 1;
    pb_layout_view_sizes(l, expert ? PB_GK_EP : PB_GK_TP, sz);
    for (int i = 0; i < PB_DIM_COUNT; i++) {
        pb_dim_t d = l->order[i];
        stride[d] = s;
        coord[d] = (rank / s) % sz[d];
        s *= sz[d];
    }
    int base = rank;
    for (int d = 0; d < PB_DIM_COUNT; d++)
        if (mask & BIT(d)) {
            base -= coord[d] * stride[d];
            n *= sz[d];
        }
    if (n > cap)
        return -1;
    for (int j = 0; j < n; j++) {
        int r = base, rest = j;
        for (int i = 0; i < PB_DIM_COUNT; i++) {
            pb_dim_t d = l->order[i];
            if (mask & BIT(d)) {
                r += (rest % sz[d]) * stride[d];
                rest /= sz[d];
            }
        }
        out[j] = r;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_int);
    return n;
}

/* The groups Megatron-Core makes (parallel_state.py, initialize_model_
 * parallel), in the order a member set equal to several of them is named
 * (sizes of 1 make groups coincide): the single dimensions first - TP,
 * CP, DP without CP ('dp'), DP with CP ('dp-cp', the gradients' group,
 * PB_GK_DP), PP, then the expert view's EP, EDP and expert TP - then the
 * mixed ones: model parallel 'tp-pp', 'tp-dp', 'tp-dp-cp', 'tp-cp' and
 * the expert 'tp-ep', 'tp-ep-pp'. */
static const struct {
    int expert;
    unsigned mask;
    pb_jdim_t dim;
} groups[] = {
    {0, BIT(PB_DIM_TP), PB_JD_TP},
    {0, BIT(PB_DIM_CP), PB_JD_CP},
    {0, BIT(PB_DIM_DP), PB_JD_DP},
    {0, BIT(PB_DIM_CP) | BIT(PB_DIM_DP), PB_JD_DP},
    {0, BIT(PB_DIM_PP), PB_JD_PP},
    {1, BIT(PB_DIM_EP), PB_JD_EP},
    {1, BIT(PB_DIM_DP), PB_JD_EDP},
    {1, BIT(PB_DIM_TP), PB_JD_TP},
    {0, BIT(PB_DIM_TP) | BIT(PB_DIM_PP), PB_JD_OTHER},
    {0, BIT(PB_DIM_TP) | BIT(PB_DIM_DP), PB_JD_OTHER},
    {0, BIT(PB_DIM_TP) | BIT(PB_DIM_CP) | BIT(PB_DIM_DP), PB_JD_OTHER},
    {0, BIT(PB_DIM_TP) | BIT(PB_DIM_CP), PB_JD_OTHER},
    {1, BIT(PB_DIM_TP) | BIT(PB_DIM_EP), PB_JD_OTHER},
    {1, BIT(PB_DIM_TP) | BIT(PB_DIM_EP) | BIT(PB_DIM_PP), PB_JD_OTHER},
};

/* Megatron's embedding group: the first and last stage of a pipeline
 * (get_embedding_ranks' default), a group of its own when pp > 2.  With
 * pp 2 those are the pipeline group's members: the embedding group is
 * then told from it by its traffic, all-reduces (of the tied embedding's
 * gradients) and no send or receive. */
static int is_embedding(const pb_layout_t *l, const int *m, int n, unsigned tr, int *buf)
{
    int pp = l->size[PB_DIM_PP];
    if (pp < 2 || n != 2 || group_of(l, 0, BIT(PB_DIM_PP), m[0], buf, pp) != pp)
        return 0;
    if (pp == 2 && tr != PB_JP_T_AR)
        return 0;
    return buf[0] == m[0] && buf[pp - 1] == m[1];
}

/* A comm of sends and receives between some members of one CP or PP
 * group: PyTorch runs a lone send or receive on a communicator of its
 * two ranks (ProcessGroupNCCL's point-to-point communicators), so a
 * pipeline's or a context-parallel ring's transfers may be recorded on
 * such pairs rather than on the group's own communicator. */
static pb_jdim_t p2p_within(const pb_layout_t *l, const int *m, int n, int world, int *buf)
{
    static const struct {
        pb_dim_t d;
        pb_jdim_t dim;
    } dims[] = {{PB_DIM_CP, PB_JD_CP}, {PB_DIM_PP, PB_JD_PP}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int g = group_of(l, 0, BIT(dims[i].d), m[0], buf, world), in = 0;
        for (int k = 0; k < n && g > n; k++)
            in += bsearch(&m[k], buf, (size_t)g, sizeof *buf, cmp_int) != NULL;
        if (g > n && in == n)
            return dims[i].dim;
    }
    return PB_JD_UNKNOWN;
}

/* The comm's label by l.  *fits: its members are a group l makes (or a
 * pair of one of them carrying sends and receives), whether or not its
 * traffic let it take that group's name. */
static pb_jdim_t match_layout(const pb_layout_t *l, const int *m, int n, int world, unsigned tr,
                              int *buf, int *fits)
{
    *fits = 1;
    if (pb_jp_is_world(m, n, world))
        return PB_JD_WORLD;
    pb_jdim_t found = PB_JD_UNKNOWN;
    int member = 0;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (group_of(l, groups[g].expert, groups[g].mask, m[0], buf, n) != n ||
            memcmp(buf, m, (size_t)n * sizeof *m) != 0)
            continue;
        member = 1;
        /* EP and DP can be one member set (ep = dp, tp = cp = 1): the
         * comm that carries the all-to-alls is the EP one */
        if (groups[g].dim == PB_JD_EP && (tr & PB_JP_T_A2A))
            return PB_JD_EP;
        /* a pipeline group passes activations: one that carried
         * collectives and no send or receive is another group of those
         * members (the embedding group, or none the layout explains) */
        if (groups[g].dim == PB_JD_PP && tr != 0 && !(tr & PB_JP_T_P2P))
            continue;
        if (found == PB_JD_UNKNOWN)
            found = groups[g].dim;
    }
    if (found == PB_JD_UNKNOWN && is_embedding(l, m, n, tr, buf))
        found = PB_JD_OTHER;
    if (found == PB_JD_UNKNOWN && (tr & PB_JP_T_P2P))
        found = p2p_within(l, m, n, world, buf);
    *fits = member || found != PB_JD_UNKNOWN;
    return found;
}

/* Labels the comms by l (pb_jp_infer_layout); the first comm that
 * carried operations and fits none of l's groups, or -1. */
static long label(pb_jobprof_t *jp, const pb_layout_t *l, int world, int only_unknown,
                  const unsigned *tr, int *m, int *buf)
{
    long unfit = -1;
    for (size_t i = 0; i < jp->ncomms; i++) {
        pb_jcomm_t *c = &jp->comms[i];
        if (only_unknown && c->dim != PB_JD_UNKNOWN)
            continue;
        c->dim = PB_JD_UNKNOWN;
        /* a one-rank comm moves nothing over any link: no dimension */
        if (c->nranks < 2 || c->nranks > world || pb_jp_sorted_members(c, m) != 0)
            continue;
        int fits;
        c->dim = match_layout(l, m, c->nranks, world, tr[i], buf, &fits);
        if (!fits && tr[i] != 0 && unfit < 0)
            unfit = (long)i;
    }
    return unfit;
}

/* Labels as pb_jp_infer_layout; -1 out of memory, else label()'s. */
static long label_all(pb_jobprof_t *jp, const pb_layout_t *l, int world, int only_unknown)
{
    unsigned *tr = calloc(jp->ncomms + 1, sizeof *tr);
    int *m = malloc(((size_t)world + 1) * sizeof *m), *buf = malloc(((size_t)world + 1) * sizeof *buf);
    long unfit = -1;
    if (tr && m && buf) {
        pb_jp_traffic(jp, tr);
        unfit = label(jp, l, world, only_unknown, tr, m, buf);
    }
    free(tr);
    free(m);
    free(buf);
    return unfit;
}

void pb_jp_infer_layout(pb_jobprof_t *jp, const pb_layout_t *l, int world, int only_unknown)
{
    (void)label_all(jp, l, world, only_unknown);
}

/* "tp 4, cp 1, dp 1, pp 1" (", ep N" when experts are spread). */
static void layout_text(const pb_layout_t *l, char *buf, size_t len)
{
    int at = snprintf(buf, len, "tp %d, cp %d, dp %d, pp %d", l->size[PB_DIM_TP],
                      l->size[PB_DIM_CP], l->size[PB_DIM_DP], l->size[PB_DIM_PP]);
    if (l->size[PB_DIM_EP] > 1 && at > 0 && (size_t)at < len)
        snprintf(buf + at, len - (size_t)at, ", ep %d", l->size[PB_DIM_EP]);
}

/* A pipeline passes activations between its stages: pp above 1 with no
 * send or receive in a recording that lost nothing is no pipeline. */
static int pipeline_silent(const pb_jobprof_t *jp, const pb_layout_t *l)
{
    if (l->size[PB_DIM_PP] < 2 || jp->every > 1 || jp->dropped > 0)
        return 0;
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].kind != PB_JK_COLL)
            return 0;
    return 1;
}

int pb_jp_infer_given(pb_jobprof_t *jp, const pb_layout_t *l, int world, pb_err_t *err)
{
    long unfit = label_all(jp, l, world, 0);
    char lay[96], mem[96];
    layout_text(l, lay, sizeof lay);
    if (unfit >= 0) {
        const pb_jcomm_t *c = &jp->comms[unfit];
        uint64_t nops = 0;
        for (size_t i = 0; i < jp->nops; i++)
            nops += jp->ops[i].comm == (int)unfit;
        pb_jp_members_text(c, 8, mem, sizeof mem);
        return pb_err_set(err, PB_EINPUT, "the layout (%s) contradicts the recording: "
                          "communicator %ld (%s, ranks %s) carried %llu records and is none "
                          "of its groups; give the layout the job ran, or leave it out to "
                          "infer it", lay, unfit, c->name[0] ? c->name : "no name", mem,
                          (unsigned long long)nops);
    }
    if (pipeline_silent(jp, l))
        return pb_err_set(err, PB_EINPUT, "the layout (%s) contradicts the recording: pp %d, "
                          "but no send or receive was recorded (a pipeline passes activations "
                          "between its stages); give the layout the job ran, or leave it out "
                          "to infer it", lay, l->size[PB_DIM_PP]);
    return PB_OK;
}

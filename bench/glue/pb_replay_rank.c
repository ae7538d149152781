/* pb_replay_rank.c - one rank's side of a replay plan
 * (pb_replay_plan.h): its units in order with the recorded idle time
 * before each, a unit's size at --scale, and the world a replay launches. */
#include "pb_replay_plan.h"

#include <stdlib.h>

#include "../../jobprof/pb_jp_infer.h"

static int64_t t_start(const pb_jop_t *o)
{
    return o->t_start_ns > 0 ? o->t_start_ns : o->t_issue_ns;
}

static int64_t t_end(const pb_jop_t *o)
{
    if (o->t_end_ns > 0)
        return o->t_end_ns;
    return t_start(o) > 0 && o->gpu_ns >= 0 ? t_start(o) + o->gpu_ns : 0;
}

int pb_rp_launch_world(const char *const *paths, size_t npaths, int asked, int *np,
                       pb_err_t *err)
{
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    int code = pb_jp_load(paths, npaths, &jp, err);
    int world = code == PB_OK ? pb_jp_world(&jp) : 0;
    pb_jobprof_free(&jp);
    if (code != PB_OK)
        return code;
    if (world <= 0)
        return pb_err_set(err, PB_EINPUT, "the recording names no rank: nothing to replay");
    if (asked && asked != world)
        return pb_err_set(err, PB_EINPUT,
                          "the recording is of %d ranks, %d asked for (--np, --gpus): replay runs "
                          "one rank per recorded rank (give %d or leave it out)",
                          world, asked, world);
    *np = world;
    return PB_OK;
}

/* The recorded idle time between a rank's two operations. */
static int64_t gap(const pb_jobprof_t *jp, size_t prev, size_t cur)
{
    if (prev == SIZE_MAX || cur == SIZE_MAX)
        return 0;
    int64_t s = t_start(&jp->ops[cur]), e = t_end(&jp->ops[prev]);
    return s > 0 && e > 0 && s > e ? s - e : 0;
}

int pb_rp_rank_steps(const pb_replay_plan_t *p, const pb_jobprof_t *jp, int rank,
                     pb_rp_step_t **out, size_t *n, pb_err_t *err)
{
    *out = NULL;
    *n = 0;
    int *me = malloc((p->ncomms ? p->ncomms : 1) * sizeof *me);
    size_t *rec = malloc((p->nunits ? p->nunits : 1) * sizeof *rec);
    pb_rp_step_t *s = malloc((p->nunits ? p->nunits : 1) * sizeof *s);
    if (me == NULL || rec == NULL || s == NULL) {
        free(me);
        free(rec);
        free(s);
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    }
    for (size_t c = 0; c < p->ncomms; c++) {
        me[c] = -1;
        for (int k = 0; k < jp->comms[c].nranks; k++)
            if (jp->comms[c].members[k] == rank)
                me[c] = k;
    }
    for (size_t u = 0; u < p->nunits; u++)
        rec[u] = SIZE_MAX;
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].rank == rank && p->unit_of_op[i] != SIZE_MAX &&
            rec[p->unit_of_op[i]] == SIZE_MAX)
            rec[p->unit_of_op[i]] = i;
    size_t prev = SIZE_MAX;
    for (size_t u = 0; u < p->nunits; u++) {
        const pb_rp_unit_t *un = &p->units[u];
        int m = me[un->comm];
        if (m < 0 || (un->src >= 0 && m != un->src && m != un->dst))
            continue;
        s[(*n)++] = (pb_rp_step_t){u, m, gap(jp, prev, rec[u])};
        prev = rec[u];
    }
    free(me);
    free(rec);
    *out = s;
    return PB_OK;
}

uint64_t pb_rp_scaled(const pb_rp_unit_t *u, int n, double scale)
{
    uint64_t gran = pb_coll_granule(u->coll, n, u->dtype);
    double want = (double)u->bytes * scale;
    uint64_t b = scale == 1.0 ? u->bytes : want >= 1.8e19 ? UINT64_MAX : (uint64_t)want;
    b -= b % gran;
    return b ? b : gran;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xffu)) * UINT64_C(1099511628211);
    return h;
}

uint64_t pb_rp_hash(const pb_replay_plan_t *p)
{
    uint64_t h = fnv(UINT64_C(14695981039346656037), (uint64_t)p->world);
    for (size_t i = 0; i < p->nunits; i++) {
        const pb_rp_unit_t *u = &p->units[i];
        h = fnv(h, (uint64_t)u->comm);
        h = fnv(h, (uint64_t)u->coll << 32 | (uint64_t)u->dtype);
        h = fnv(h, u->bytes);
        h = fnv(h, (uint64_t)(uint32_t)u->root << 32 | (uint64_t)(uint32_t)u->src);
        h = fnv(h, (uint64_t)(uint32_t)u->dst);
    }
    return h;
}

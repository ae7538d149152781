/* pb_replay_rank.c - one rank's side of a replay plan
 * (pb_replay_plan.h): its units in order with the recorded idle time
 * before each, a unit's size at --scale, the world a replay launches and
 * the check that each of its ranks was recorded; a communicator's members
 * as the table prints them. */
#include "pb_replay_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../jobprof/pb_jp_infer.h"
#include "../../jobprof/pb_jp_ranks.h"

static int64_t t_start(const pb_jop_t *o)
{
    return o->t_start_ns > 0 ? o->t_start_ns : o->t_issue_ns;
}

/* The recorded end: as recorded, or its start plus its GPU time - a sum
 * taken only where it fits in 64 bits (the readers bound times to 2^62,
 * but a plan is built from whatever it is given); 0 not known. */
static int64_t t_end(const pb_jop_t *o)
{
    if (o->t_end_ns > 0)
        return o->t_end_ns;
    int64_t s = t_start(o);
    return s > 0 && o->gpu_ns >= 0 ? (o->gpu_ns <= INT64_MAX - s ? s + o->gpu_ns : INT64_MAX) : 0;
}

int pb_rp_launch_world(const char *const *paths, size_t npaths, int asked, int *np,
                       pb_err_t *err)
{
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    int code = pb_jp_load(paths, npaths, &jp, err);
    int world = code == PB_OK ? pb_jp_world(&jp) : 0;
    /* planned here too: a recording that cannot be replayed (a rank's
     * records missing, nothing to run) is refused before ranks start */
    pb_replay_plan_t p;
    if (code == PB_OK && (code = pb_rp_build(&jp, &p, err)) == PB_OK)
        pb_rp_free(&p);
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

int pb_rp_check_whole(const pb_replay_plan_t *p, const pb_jobprof_t *jp, pb_err_t *err)
{
    if (p->world <= 0)
        return PB_OK;
    unsigned char *has = calloc((size_t)p->world, 1), *lost = calloc((size_t)p->world, 1);
    if (has == NULL || lost == NULL) {
        free(has);
        free(lost);
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    }
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].rank >= 0 && jp->ops[i].rank < p->world)
            has[jp->ops[i].rank] = 1;
    int n = 0;
    for (size_t c = 0; c < p->ncomms; c++) {
        const pb_jcomm_t *cm = &jp->comms[c];
        /* a replayed communicator's members are all in the world (maps_make) */
        for (int k = 0; p->comms[c].units && k < cm->nranks; k++)
            if (!has[cm->members[k]] && !lost[cm->members[k]]) {
                lost[cm->members[k]] = 1;
                n++;
            }
    }
    char list[160];
    pb_jp_ranks_text(lost, p->world, list, sizeof list);
    free(has);
    free(lost);
    if (n == 0)
        return PB_OK;
    return pb_err_set(err, PB_EINPUT, "rank%s %s of the recorded %d issued no record, but "
                      "replayed communicators include %s: replay would make up %s side; give "
                      "every rank's recording (each rank's trace or profiler files)",
                      n > 1 ? "s" : "", list, p->world, n > 1 ? "them" : "it",
                      n > 1 ? "their" : "its");
}

void pb_rp_members_text(const pb_jcomm_t *c, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int k = 0; k < c->nranks;) {
        int j = k;
        /* in 64 bits: a member may be any int a file held (INT_MAX + 1
         * overflows an int) */
        while (j + 1 < c->nranks && (int64_t)c->members[j + 1] == (int64_t)c->members[j] + 1)
            j++;
        char piece[32];
        if (j > k)
            snprintf(piece, sizeof piece, "%s%d-%d", k ? "," : "", c->members[k], c->members[j]);
        else
            snprintf(piece, sizeof piece, "%s%d", k ? "," : "", c->members[k]);
        size_t m = strlen(piece);
        if (n + m + 5 > len) { /* room for ",..." and the NUL */
            snprintf(buf + n, len - n, ",...");
            return;
        }
        memcpy(buf + n, piece, m + 1);
        n += m;
        k = j + 1;
    }
}

/* pb_jp_strag.c - the last rank of every matched collective (rules:
 * pb_jp_strag.h). */
#include "pb_jp_strag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_infer.h"

/* Keeps the PB_JP_STRAG_WORST largest lags, largest first. */
static void keep_worst(pb_jp_strag_t *s, const pb_jp_late_t *l)
{
    int at = s->nworst;
    while (at > 0 && s->worst[at - 1].lag_ns < l->lag_ns)
        at--;
    if (at >= PB_JP_STRAG_WORST)
        return;
    int n = s->nworst < PB_JP_STRAG_WORST ? s->nworst : PB_JP_STRAG_WORST - 1;
    memmove(&s->worst[at + 1], &s->worst[at], (size_t)(n - at) * sizeof *s->worst);
    s->worst[at] = *l;
    if (s->nworst < PB_JP_STRAG_WORST)
        s->nworst++;
}

/* The last and second-to-last issue of one instance; 0, or -1 when it is
 * not matched (a member missing, an issue time unknown). */
static int last_two(const pb_jobprof_t *jp, const pb_jp_insts_t *in, const pb_jp_inst_t *x,
                    int *last_rank, int64_t *lag)
{
    if (x->kind != PB_JK_COLL || x->nrec != jp->comms[x->comm].nranks)
        return -1;
    int64_t t1 = INT64_MIN, t2 = INT64_MIN; /* the latest issue, the one before */
    int r1 = -1;
    for (int k = 0; k < x->nrec; k++) {
        const pb_jop_t *o = &jp->ops[in->order[x->first + (size_t)k]];
        if (o->t_issue_ns <= 0 || o->rank < 0)
            return -1;
        if (o->t_issue_ns > t1) {
            t2 = t1;
            t1 = o->t_issue_ns;
            r1 = o->rank;
        } else if (o->t_issue_ns > t2) {
            t2 = o->t_issue_ns;
        }
    }
    *last_rank = r1;
    *lag = t1 - t2;
    return 0;
}

static int cmp_rank(const void *pa, const void *pb)
{
    const pb_jp_rank_late_t *a = pa, *b = pb;
    if (a->lag_sum_ns != b->lag_sum_ns)
        return a->lag_sum_ns > b->lag_sum_ns ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The ranks that were last at least once, with their rule applied. */
static int rank_list(pb_jp_rank_late_t *all, int world, pb_jp_strag_t *s)
{
    size_t n = 0;
    for (int r = 0; r < world; r++)
        n += all[r].last > 0;
    s->ranks = malloc((n ? n : 1) * sizeof *s->ranks);
    if (s->ranks == NULL)
        return -1;
    for (int r = 0; r < world; r++) {
        pb_jp_rank_late_t *a = &all[r];
        if (a->last == 0)
            continue;
        a->mean_lag_ns = (double)a->lag_sum_ns / (double)a->last;
        a->repeated = a->last >= 2 && (double)a->last >= a->chance + 3.0 * sqrt(a->chance_var);
        s->ranks[s->nranks++] = *a;
    }
    if (s->nranks > 0) /* qsort wants a valid array even for none */
        qsort(s->ranks, s->nranks, sizeof *s->ranks, cmp_rank);
    return 0;
}

int pb_jp_strag_find(const pb_jobprof_t *jp, const pb_jp_insts_t *in, int64_t min_lag_ns,
                     pb_jp_strag_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    out->min_lag_ns = min_lag_ns;
    int world = pb_jp_world(jp);
    pb_jp_rank_late_t *all = calloc((size_t)(world > 0 ? world : 1), sizeof *all);
    if (all == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory looking for stragglers");
    for (int r = 0; r < world; r++)
        all[r].rank = r;
    for (size_t i = 0; i < in->n; i++) {
        const pb_jp_inst_t *x = &in->v[i];
        int n = jp->comms[x->comm].nranks, last;
        int64_t lag;
        if (x->kind != PB_JK_COLL || n < 2)
            continue;
        if (last_two(jp, in, x, &last, &lag) != 0) {
            out->unmatched++;
            continue;
        }
        out->matched++;
        if (lag < min_lag_ns || lag <= 0 || last >= world)
            continue;
        /* chance over the same set the count is over: the late ones */
        for (int k = 0; k < x->nrec; k++) {
            int r = jp->ops[in->order[x->first + (size_t)k]].rank;
            if (r < world) {
                all[r].ops++;
                all[r].chance += 1.0 / n;
                all[r].chance_var += (1.0 / n) * (1.0 - 1.0 / n);
            }
        }
        out->late++;
        all[last].last++;
        all[last].lag_sum_ns += lag;
        keep_worst(out, &(pb_jp_late_t){i, last, lag});
    }
    int rc = rank_list(all, world, out);
    free(all);
    if (rc != 0) {
        pb_jp_strag_free(out);
        return pb_err_set(err, PB_ERUNTIME, "out of memory looking for stragglers");
    }
    return PB_OK;
}

void pb_jp_strag_free(pb_jp_strag_t *s)
{
    free(s->ranks);
    memset(s, 0, sizeof *s);
}

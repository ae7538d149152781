#include "pb_attrib.h"

#include <stdlib.h>
#include <string.h>

int pb_attrib_init(pb_attrib_t *t, int size, int rails, pb_err_t *err)
{
    memset(t, 0, sizeof *t);
    t->size = size;
    t->rails = rails;
    size_t w = size > 0 ? (size_t)size : 1, nr = rails > 0 ? (size_t)rails : 1;
    t->pairs = calloc(w, sizeof *t->pairs);
    t->slow = calloc(w, sizeof *t->slow);
    t->xpairs = calloc(w, sizeof *t->xpairs);
    t->xslow = calloc(w, sizeof *t->xslow);
    t->rail_pairs = calloc(nr, sizeof *t->rail_pairs);
    t->rail_slow = calloc(nr, sizeof *t->rail_slow);
    if (!t->pairs || !t->slow || !t->xpairs || !t->xslow || !t->rail_pairs || !t->rail_slow) {
        pb_attrib_free(t);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for %d ranks' verdicts", size);
    }
    return PB_OK;
}

void pb_attrib_free(pb_attrib_t *t)
{
    free(t->pairs);
    free(t->slow);
    free(t->xpairs);
    free(t->xslow);
    free(t->rail_pairs);
    free(t->rail_slow);
    free(t->flagged);
    memset(t, 0, sizeof *t);
}

int pb_attrib_add(pb_attrib_t *t, const pb_attrib_pair_t *p, pb_err_t *err)
{
    if (p->a < 0 || p->a >= t->size || p->b < 0 || p->b >= t->size || p->a == p->b ||
        p->rail >= t->rails || p->rail < -1)
        return pb_err_set(err, PB_EINPUT, "pair %d-%d on rail %d is not one of %d ranks, "
                          "%d rails", p->a, p->b, p->rail, t->size, t->rails);
    int f = p->flagged != 0, ends[2] = {p->a, p->b};
    for (int k = 0; k < 2; k++) {
        t->pairs[ends[k]]++;
        t->slow[ends[k]] += f;
        if (p->rail >= 0) {
            t->xpairs[ends[k]]++;
            t->xslow[ends[k]] += f;
        }
    }
    if (p->rail >= 0) {
        t->rail_pairs[p->rail]++;
        t->rail_slow[p->rail] += f;
    }
    t->njudged++;
    if (!f)
        return PB_OK;
    t->nflagged++;
    if (t->nkept == PB_ATTRIB_KEEP)
        return PB_OK;
    if (t->flagged == NULL && (t->flagged = malloc(PB_ATTRIB_KEEP * sizeof *t->flagged)) == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the flagged pairs");
    t->flagged[t->nkept++] = *p;
    return PB_OK;
}

int pb_attrib_rank_slow(const pb_attrib_t *t, int r)
{
    return t->pairs[r] >= 2 && t->slow[r] == t->pairs[r] && t->pairs[r] > t->xpairs[r];
}

int pb_attrib_rail_slow(const pb_attrib_t *t, int rail)
{
    return rail >= 0 && rail < t->rails && t->rail_pairs[rail] >= 2 &&
           t->rail_slow[rail] == t->rail_pairs[rail];
}

int pb_attrib_nic_slow(const pb_attrib_t *t, int r)
{
    return !pb_attrib_rank_slow(t, r) && t->xpairs[r] >= 2 && t->xslow[r] == t->xpairs[r];
}

pb_attrib_cause_t pb_attrib_cause(const pb_attrib_t *t, const pb_attrib_pair_t *p, int *who)
{
    *who = -1;
    if (!p->flagged)
        return PB_CAUSE_NONE;
    if (pb_attrib_rank_slow(t, p->a) || pb_attrib_rank_slow(t, p->b)) {
        *who = pb_attrib_rank_slow(t, p->a) ? p->a : p->b;
        return PB_CAUSE_RANK;
    }
    if (p->rail >= 0 && pb_attrib_rail_slow(t, p->rail)) {
        *who = p->rail;
        return PB_CAUSE_RAIL;
    }
    if (p->rail >= 0 && (pb_attrib_nic_slow(t, p->a) || pb_attrib_nic_slow(t, p->b))) {
        *who = pb_attrib_nic_slow(t, p->a) ? p->a : p->b;
        return PB_CAUSE_NIC;
    }
    return PB_CAUSE_PAIR;
}

/* pb_jp_infer.c - each communicator's dimension, by the layout's groups or
 * inferred from the member sets (rules: pb_jp_infer.h, infer_auto). */
#include "pb_jp_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_infer_priv.h"

#define MAX_LINKS 8

int pb_jp_world(const pb_jobprof_t *jp)
{
    if (jp->world > 0)
        return jp->world;
    int w = 0;
    for (size_t i = 0; i < jp->ncomms; i++)
        for (int k = 0; k < jp->comms[i].nranks; k++)
            if (jp->comms[i].members[k] + 1 > w)
                w = jp->comms[i].members[k] + 1;
    return w;
}

void pb_jp_members_text(const pb_jcomm_t *c, int most, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < c->nranks && at + 1 < len; k++) {
        int w;
        if (k == most)
            w = snprintf(buf + at, len - at, " ... (%d)", c->nranks);
        else if (c->members[k] < 0)
            w = snprintf(buf + at, len - at, "%s?", k ? " " : "");
        else
            w = snprintf(buf + at, len - at, "%s%d", k ? " " : "", c->members[k]);
        at += w > 0 ? (size_t)w : 0;
        if (k == most)
            break;
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int pb_jp_sorted_members(const pb_jcomm_t *c, int *out)
{
    for (int k = 0; k < c->nranks; k++) {
        if (c->members[k] < 0)
            return -1;
        out[k] = c->members[k];
    }
    qsort(out, (size_t)c->nranks, sizeof *out, cmp_int);
    return 0;
}

int pb_jp_is_world(const int *m, int n, int world)
{
    if (n != world)
        return 0;
    for (int k = 0; k < n; k++)
        if (m[k] != k)
            return 0;
    return 1;
}

void pb_jp_traffic(const pb_jobprof_t *jp, unsigned *tr)
{
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        if (o->kind != PB_JK_COLL)
            tr[o->comm] |= PB_JP_T_P2P;
        else if (o->known && (o->coll == PB_ALLTOALL || o->coll == PB_ALLTOALLV))
            tr[o->comm] |= PB_JP_T_A2A;
        else if (o->known && o->coll == PB_ALLREDUCE)
            tr[o->comm] |= PB_JP_T_AR;
        else
            tr[o->comm] |= PB_JP_T_COLL;
    }
}

/* ---- without a layout ------------------------------------------------ */

typedef struct link {
    int stride, size, p2p;
    pb_jdim_t dim;
} link_t;

/* Names the links of the chain (innermost first).  Megatron's order puts
 * pp outermost and cp right after tp; PP and CP are the dimensions whose
 * groups carry send/recv (CP's all-gather of K and V is "transformed to
 * point-to-point communications in ring topology under the hood":
 * Megatron-LM docs/source/api-guide/context_parallel.rst; --cp-comm-type
 * allgather or a2a make collectives of it), TP and DP carry collectives
 * only.  So: an outermost link
 * with point-to-point traffic is PP; of the others, one with
 * point-to-point traffic is CP, a link before it TP and one after it DP;
 * without such a link two links are TP and DP, three TP, CP (a CP of
 * collectives: all-gather or all-to-all variants) and DP.  One link
 * alone could be TP or DP (tp 8 or dp 8 look alike by membership): it
 * stays unknown, as does everything when the rule meets more links than
 * it allows.  Returns 1 when every link was named. */
static int name_links(link_t *lk, int k)
{
    int last = k;
    if (k > 0 && lk[k - 1].p2p) {
        lk[k - 1].dim = PB_JD_PP;
        last = k - 1;
    }
    int cpi = -1, np2p = 0;
    for (int i = 0; i < last; i++)
        if (lk[i].p2p) {
            np2p++;
            cpi = i;
        }
    if (np2p > 1)
        return 0;
    if (np2p == 1) {
        int before = cpi, after = last - cpi - 1;
        if (before > 1 || after > 1)
            return 0;
        lk[cpi].dim = PB_JD_CP;
        if (before == 1)
            lk[0].dim = PB_JD_TP;
        if (after == 1)
            lk[cpi + 1].dim = PB_JD_DP;
        return 1;
    }
    static const pb_jdim_t two[] = {PB_JD_TP, PB_JD_DP}, three[] = {PB_JD_TP, PB_JD_CP, PB_JD_DP};
    if (last == 2 || last == 3)
        for (int i = 0; i < last; i++)
            lk[i].dim = last == 2 ? two[i] : three[i];
    return last == 0 || last == 2 || last == 3;
}

typedef struct cinfo {
    int stride, n, ap; /* arithmetic progression: first member + j * stride */
} cinfo_t;

/* The chain of links tiling the world from stride 1: at each stride the
 * smallest group size found there that keeps dividing the world.  A
 * stride no class starts at (a dimension with no recorded comm) breaks
 * it: 0 then, and no link is named.  Returns the links' count. */
static int build_chain(const cinfo_t *ci, const unsigned *tr, const int *use, size_t nc,
                       int world, link_t *lk)
{
    int k = 0;
    long s = 1;
    while (s < world) {
        int best = -1;
        for (size_t i = 0; i < nc; i++)
            if (use[i] && ci[i].stride == s && world % (s * ci[i].n) == 0 &&
                (best < 0 || ci[i].n < ci[best].n))
                best = (int)i;
        if (best < 0 || k == MAX_LINKS)
            return 0;
        int p2p = 0;
        for (size_t i = 0; i < nc; i++)
            p2p |= use[i] && ci[i].stride == s && ci[i].n == ci[best].n &&
                   (tr[i] & PB_JP_T_P2P);
        lk[k++] = (link_t){(int)s, ci[best].n, p2p, PB_JD_UNKNOWN};
        s *= ci[best].n;
    }
    return k;
}

/* A class that is no link: several consecutive links (stride of the
 * first, size their product).  CP then DP is Megatron's 'dp-cp', the
 * gradients' group: DP.  Other spans are mixed groups when named. */
static pb_jdim_t span_dim(const link_t *lk, int k, int all_named, int stride, int n)
{
    for (int i = 0; i < k; i++) {
        if (lk[i].stride != stride)
            continue;
        long prod = lk[i].size;
        for (int j = i + 1; j < k && prod < n; j++) {
            prod *= lk[j].size;
            if (prod == n && j == i + 1 && lk[i].dim == PB_JD_CP && lk[j].dim == PB_JD_DP)
                return PB_JD_DP;
            if (prod == n)
                return all_named ? PB_JD_OTHER : PB_JD_UNKNOWN;
        }
    }
    return PB_JD_UNKNOWN;
}

static void shape_of(const link_t *lk, int k, int all_named, int world, pb_jp_shape_t *sh)
{
    sh->tp = sh->cp = sh->dp = sh->pp = 1;
    sh->world = world;
    long prod = 1;
    for (int i = 0; i < k; i++) {
        int *slot = lk[i].dim == PB_JD_TP ? &sh->tp : lk[i].dim == PB_JD_CP ? &sh->cp
                  : lk[i].dim == PB_JD_DP ? &sh->dp : lk[i].dim == PB_JD_PP ? &sh->pp : NULL;
        if (slot)
            *slot = lk[i].size;
        prod *= lk[i].size;
    }
    sh->consistent = all_named && k > 0 && prod == world;
}

/* Every comm's arithmetic progression, world and all-to-all comms named
 * on the way. */
static void scan_comms(pb_jobprof_t *jp, int world, const unsigned *tr, int *m, cinfo_t *ci)
{
    for (size_t i = 0; i < jp->ncomms; i++) {
        pb_jcomm_t *c = &jp->comms[i];
        c->dim = PB_JD_UNKNOWN;
        ci[i] = (cinfo_t){0, c->nranks, 0};
        if (c->nranks < 2 || c->nranks > world || pb_jp_sorted_members(c, m) != 0)
            continue;
        if (pb_jp_is_world(m, c->nranks, world)) {
            c->dim = PB_JD_WORLD;
            continue;
        }
        if (tr[i] & PB_JP_T_A2A) { /* the expert dispatch: an all-to-all is EP's alone */
            c->dim = PB_JD_EP;
            continue;
        }
        int d = m[1] - m[0], ap = d > 0;
        for (int k = 2; k < c->nranks && ap; k++)
            ap = m[k] - m[k - 1] == d;
        ci[i] = (cinfo_t){d, c->nranks, ap};
    }
}

void pb_jp_infer_auto(pb_jobprof_t *jp, int world, pb_jp_shape_t *shape)
{
    memset(shape, 0, sizeof *shape);
    shape->world = world;
    size_t nc = jp->ncomms;
    unsigned *tr = calloc(nc + 1, sizeof *tr);
    int *use = calloc(nc + 1, sizeof *use), *m = malloc(((size_t)world + 1) * sizeof *m);
    cinfo_t *ci = calloc(nc + 1, sizeof *ci);
    if (tr && use && m && ci && world > 0) {
        pb_jp_traffic(jp, tr);
        scan_comms(jp, world, tr, m, ci);
        for (size_t i = 0; i < nc; i++)
            use[i] = ci[i].ap && jp->comms[i].dim == PB_JD_UNKNOWN;
        link_t lk[MAX_LINKS];
        int k = build_chain(ci, tr, use, nc, world, lk);
        int all = k > 0 && name_links(lk, k);
        for (size_t i = 0; i < nc; i++) {
            if (!use[i])
                continue;
            pb_jdim_t d = PB_JD_UNKNOWN;
            for (int j = 0; j < k; j++)
                if (lk[j].stride == ci[i].stride && lk[j].size == ci[i].n)
                    d = lk[j].dim;
            int in_chain = 0;
            for (int j = 0; j < k; j++)
                in_chain |= lk[j].stride == ci[i].stride && lk[j].size == ci[i].n;
            jp->comms[i].dim = in_chain ? d : span_dim(lk, k, all, ci[i].stride, ci[i].n);
        }
        shape_of(lk, k, all, world, shape);
    }
    free(tr);
    free(use);
    free(m);
    free(ci);
    if (!shape->consistent)
        return;
    /* the layout found names the rest by Megatron's groups (model
     * parallel 'tp-pp', embedding, ...) */
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = shape->tp;
    l.size[PB_DIM_CP] = shape->cp;
    l.size[PB_DIM_DP] = shape->dp;
    l.size[PB_DIM_PP] = shape->pp;
    pb_jp_infer_layout(jp, &l, world, 1);
}

int pb_jp_infer(pb_jobprof_t *jp, const pb_layout_t *l, pb_jp_shape_t *shape, pb_err_t *err)
{
    int world = pb_jp_world(jp);
    if (world <= 0)
        return pb_err_set(err, PB_EINPUT, "the records name no rank: no layout to infer");
    if (l == NULL) {
        pb_jp_infer_auto(jp, world, shape);
        return PB_OK;
    }
    uint64_t w = pb_layout_world(l);
    if (w != (uint64_t)world)
        return pb_err_set(err, PB_EINPUT,
                          "layout tp %d x cp %d x dp %d x pp %d = %llu ranks, but the records "
                          "hold %d",
                          l->size[PB_DIM_TP], l->size[PB_DIM_CP], l->size[PB_DIM_DP],
                          l->size[PB_DIM_PP], (unsigned long long)w, world);
    *shape = (pb_jp_shape_t){l->size[PB_DIM_TP], l->size[PB_DIM_CP], l->size[PB_DIM_DP],
                             l->size[PB_DIM_PP], world, 1};
    return pb_jp_infer_given(jp, l, world, err);
}

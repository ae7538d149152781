/* pb_jp_expect.c - predicted traffic against recorded (rules:
 * pb_jp_expect.h). */
#include "pb_jp_expect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pb_jx_name(pb_jx_t v)
{
    static const char *const n[] = {"ok", "count", "size", "missing", "extra"};
    return (unsigned)v <= PB_JX_EXTRA ? n[v] : "?";
}

pb_jdim_t pb_jp_gkind_dim(pb_gkind_t k)
{
    /* HSDP's shard and replica groups are no dimension a trace's
     * communicators are named by (pb_jp_infer.c): `profile` refuses
     * --shard-group */
    static const pb_jdim_t d[PB_GK_COUNT] = {PB_JD_TP, PB_JD_CP, PB_JD_DP,   PB_JD_PP,
                                             PB_JD_EP, PB_JD_EDP, PB_JD_OTHER, PB_JD_OTHER};
    return (unsigned)k < PB_GK_COUNT ? d[k] : PB_JD_UNKNOWN;
}

/* One record's contribution: collective, or p2p by direction. */
enum { S_COLL, S_SEND_NEXT, S_RECV_PREV, S_SEND_PREV, S_RECV_NEXT, S_SEND_ANY, S_RECV_ANY, S_N };

typedef struct tally {
    int dim, coll, rank, slot;
    uint64_t bytes;
} tally_t;

typedef struct rkey {
    pb_jdim_t dim;
    pb_coll_t coll;
    uint64_t bytes, total;
    int used;
} rkey_t;

typedef struct xkey {
    pb_jdim_t dim;
    pb_coll_t coll;
    uint64_t bytes, count;
    int world_wide; /* its groups are the whole world */
    uint64_t end[2]; /* the first stage's and the last stage's own (pb_pat_stage_t) */
} xkey_t;

static int cmp_tally(const void *pa, const void *pb)
{
    const tally_t *a = pa, *b = pb;
    if (a->dim != b->dim)
        return a->dim < b->dim ? -1 : 1;
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The direction of a send or receive: its peer one place up the comm
 * (or, from the last, around to the first) is next, one down prev. */
static int p2p_slot(const pb_jcomm_t *c, const pb_jop_t *o)
{
    int send = o->kind == PB_JK_SEND, me = -1, n = c->nranks;
    for (int k = 0; k < n && me < 0; k++)
        if (c->members[k] == o->rank)
            me = k;
    int next = me >= 0 && (o->peer == me + 1 || (me == n - 1 && o->peer == 0 && n > 2));
    int prev = me >= 0 && (o->peer == me - 1 || (me == 0 && o->peer == n - 1 && n > 2));
    if (next)
        return send ? S_SEND_NEXT : S_RECV_NEXT;
    if (prev)
        return send ? S_SEND_PREV : S_RECV_PREV;
    return send ? S_SEND_ANY : S_RECV_ANY;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* One rank's count of a key from its slots (pb_jp_expect.h). */
static uint64_t rank_count(const uint64_t *s)
{
    return s[S_COLL] + max64(s[S_SEND_NEXT], s[S_RECV_PREV]) +
           max64(s[S_SEND_PREV], s[S_RECV_NEXT]) + max64(s[S_SEND_ANY], s[S_RECV_ANY]);
}

/* The recorded keys: per (dim, coll, bytes) the busiest rank's count. */
static int recorded(const pb_jobprof_t *jp, rkey_t **out, size_t *nout)
{
    tally_t *t = malloc((jp->nops ? jp->nops : 1) * sizeof *t);
    rkey_t *k = malloc((jp->nops ? jp->nops : 1) * sizeof *k);
    if (t == NULL || k == NULL) {
        free(t);
        free(k);
        return -1;
    }
    size_t nt = 0, nk = 0;
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        const pb_jcomm_t *c = &jp->comms[o->comm];
        if (!o->known)
            continue;
        int slot = o->kind == PB_JK_COLL ? S_COLL : p2p_slot(c, o);
        t[nt++] = (tally_t){(int)c->dim, (int)o->coll, o->rank, slot, o->bytes};
    }
    if (nt > 0) /* qsort wants a valid array even for none */
        qsort(t, nt, sizeof *t, cmp_tally);
    for (size_t i = 0; i < nt;) {
        rkey_t key = {(pb_jdim_t)t[i].dim, (pb_coll_t)t[i].coll, t[i].bytes, 0, 0};
        size_t j = i;
        while (j < nt && t[j].dim == t[i].dim && t[j].coll == t[i].coll && t[j].bytes == t[i].bytes) {
            uint64_t s[S_N] = {0};
            size_t r = j;
            while (r < nt && cmp_tally(&t[r], &t[j]) == 0)
                s[t[r++].slot]++;
            key.total = max64(key.total, rank_count(s));
            j = r;
        }
        /* sampled (one in `every` recorded): the counts as they ran */
        key.total *= (uint64_t)(jp->every > 1 ? jp->every : 1);
        k[nk++] = key;
        i = j;
    }
    free(t);
    *out = k;
    *nout = nk;
    return 0;
}

/* The predicted keys, summed in the order the patterns list them: the
 * busiest rank's count, every stage's operations and the larger of the
 * first stage's and the last stage's own (no rank holds both ends). */
static size_t predicted(const pb_pat_op_t *ops, size_t nops, int world, xkey_t *x)
{
    size_t n = 0;
    for (size_t i = 0; i < nops; i++) {
        const pb_pat_op_t *o = &ops[i];
        pb_jdim_t d = pb_jp_gkind_dim(o->group);
        size_t j = 0;
        while (j < n && !(x[j].dim == d && x[j].coll == o->coll && x[j].bytes == o->bytes))
            j++;
        if (j == n)
            x[n++] = (xkey_t){d, o->coll, o->bytes, 0, o->group_size == world, {0, 0}};
        if (o->stage == PB_STAGE_EVERY)
            x[j].count += o->count;
        else
            x[j].end[o->stage == PB_STAGE_LAST] += o->count;
    }
    for (size_t j = 0; j < n; j++)
        x[j].count += max64(x[j].end[0], x[j].end[1]);
    return n;
}

/* An all-to-all is the same operation with split sizes or without:
 * PyTorch records all_to_all_single as "all_to_allv" whenever splits are
 * passed, even or not (ProcessGroupNCCL::alltoall_base; gloo's
 * alltoall_base_ takes them likewise), and Megatron's and torchtitan's
 * dispatchers always pass them; the bytes tell an uneven one. */
static int same_coll(pb_coll_t a, pb_coll_t b)
{
    int a2a = (a == PB_ALLTOALL || a == PB_ALLTOALLV) && (b == PB_ALLTOALL || b == PB_ALLTOALLV);
    return a == b || a2a;
}

/* The unused recorded key for x nearest its size (log distance): within
 * tol when tol >= 0, any size when tol < 0; -1 none. */
static long nearest(const rkey_t *r, size_t nr, const xkey_t *x, double tol)
{
    long best = -1;
    double bd = 0.0;
    for (size_t i = 0; i < nr; i++) {
        if (r[i].used || !same_coll(r[i].coll, x->coll) ||
            !(r[i].dim == x->dim || (x->world_wide && r[i].dim == PB_JD_WORLD)))
            continue;
        double rel = fabs((double)r[i].bytes - (double)x->bytes) / (double)(x->bytes ? x->bytes : 1);
        if (tol >= 0 && rel > tol)
            continue;
        double d = fabs(log(((double)r[i].bytes + 1.0) / ((double)x->bytes + 1.0)));
        if (best < 0 || d < bd) {
            best = (long)i;
            bd = d;
        }
    }
    return best;
}

/* Steps by the vote of the matched keys (pb_jp_expect.h). */
static uint64_t vote_steps(const pb_jp_xrow_t *rows, size_t n)
{
    uint64_t best = 0;
    size_t best_votes = 0;
    for (size_t i = 0; i < n; i++) {
        const pb_jp_xrow_t *a = &rows[i];
        if (a->verdict != PB_JX_MATCH || a->exp_count == 0 || a->rec_total % a->exp_count)
            continue;
        uint64_t s = a->rec_total / a->exp_count;
        size_t votes = 0;
        for (size_t j = 0; j < n; j++)
            votes += rows[j].verdict == PB_JX_MATCH && rows[j].exp_count &&
                     rows[j].rec_total == s * rows[j].exp_count;
        if (s > 0 && (votes > best_votes || (votes == best_votes && s < best))) {
            best = s;
            best_votes = votes;
        }
    }
    return best;
}

static void match(xkey_t *x, size_t nx, rkey_t *r, size_t nr, double tol, pb_jp_expect_t *out)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nx; i++) {
            pb_jp_xrow_t *row = &out->rows[i];
            if (pass == 1 && row->verdict != PB_JX_MISSING)
                continue;
            long k = nearest(r, nr, &x[i], pass == 0 ? tol : -1.0);
            *row = (pb_jp_xrow_t){x[i].dim, x[i].coll, x[i].bytes, x[i].count, 0, 0, -1.0,
                                  PB_JX_MISSING};
            if (k < 0)
                continue;
            r[k].used = 1;
            row->rec_bytes = r[k].bytes;
            row->rec_total = r[k].total;
            row->verdict = pass == 0 ? PB_JX_MATCH : PB_JX_SIZE;
        }
    out->n = nx;
    for (size_t k = 0; k < nr; k++)
        if (!r[k].used)
            out->rows[out->n++] = (pb_jp_xrow_t){r[k].dim, r[k].coll, 0, 0, r[k].bytes,
                                                 r[k].total, -1.0, PB_JX_EXTRA};
}

int pb_jp_expect(const pb_jobprof_t *jp, const pb_pat_op_t *ops, size_t nops, int world,
                 uint64_t steps, double size_tol, pb_jp_expect_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    rkey_t *r = NULL;
    size_t nr = 0;
    xkey_t *x = malloc((nops ? nops : 1) * sizeof *x);
    if (x == NULL || recorded(jp, &r, &nr) != 0 ||
        (out->rows = malloc((nops + nr + 1) * sizeof *out->rows)) == NULL) {
        free(x);
        free(r);
        return pb_err_set(err, PB_ERUNTIME, "out of memory comparing with the patterns");
    }
    size_t nx = predicted(ops, nops, world, x);
    match(x, nx, r, nr, size_tol, out);
    free(x);
    free(r);
    out->steps_given = steps > 0;
    out->steps = steps > 0 ? steps : vote_steps(out->rows, nx);
    for (size_t i = 0; i < out->n; i++) {
        pb_jp_xrow_t *row = &out->rows[i];
        if (out->steps > 0 && row->rec_total > 0)
            row->rec_count = (double)row->rec_total / (double)out->steps;
        if (row->verdict == PB_JX_MATCH && out->steps > 0 &&
            row->rec_total != row->exp_count * out->steps)
            row->verdict = PB_JX_COUNT;
        out->nverdict[row->verdict]++;
    }
    return PB_OK;
}

void pb_jp_expect_free(pb_jp_expect_t *x)
{
    free(x->rows);
    memset(x, 0, sizeof *x);
}

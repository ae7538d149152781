/* pb_replay_plan.c - the recorded job as units in one order
 * (pb_replay_plan.h says why one order, and why it cannot deadlock). */
#include "pb_replay_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../jobprof/pb_jp_infer.h"
#include "../../jobprof/pb_jp_inst.h"
#include "../../util/pb_list.h"

const char *pb_rp_skip_text(pb_rp_skip_t s)
{
    static const char *const t[PB_RP_SKIP_COUNT] = {
        "of functions parbench does not measure", "of types parbench does not know",
        "of no recorded size", "on communicators whose members were not all recorded",
        "of sends or receives without their other half"};
    return (unsigned)s < PB_RP_SKIP_COUNT ? t[s] : "";
}

/* A communicator rank by global rank: one table per communicator,
 * sorted by global rank. */
typedef struct gmap {
    int global, local;
} gmap_t;

/* A send or a receive: its communicator, sender and receiver
 * (communicator ranks), its place among the sends of that pair (nth). */
typedef struct pkey {
    int comm, src, dst;
    uint64_t seq;
    int64_t t;
    size_t op;
    uint64_t nth;
} pkey_t;

typedef struct build {
    const pb_jobprof_t *jp;
    pb_replay_plan_t *p;
    gmap_t *maps;
    size_t *off;    /* comm c's table: maps[off[c] .. off[c + 1]) */
    int64_t *times; /* scratch for a median */
    pkey_t *sends, *recvs;
    size_t nsends, nrecvs;
} build_t;

/* <0, 0, >0 as x is below, equal to or above y: the comparators' steps,
 * each taken while the ones before it tie (c ? c : ...). */
static int order(int64_t x, int64_t y)
{
    return (x > y) - (x < y);
}

static int order_u(uint64_t x, uint64_t y)
{
    return (x > y) - (x < y);
}

static int cmp_gmap(const void *pa, const void *pb)
{
    return order(((const gmap_t *)pa)->global, ((const gmap_t *)pb)->global);
}

static int cmp_i64(const void *pa, const void *pb)
{
    return order(*(const int64_t *)pa, *(const int64_t *)pb);
}

/* The tables, and which communicators can be made again: every member
 * known, inside the world, and named once. */
static int maps_make(build_t *b, pb_err_t *err)
{
    const pb_jobprof_t *jp = b->jp;
    size_t total = 0;
    for (size_t c = 0; c < jp->ncomms; c++)
        total += (size_t)jp->comms[c].nranks;
    b->off = malloc((jp->ncomms + 1) * sizeof *b->off);
    b->maps = malloc((total ? total : 1) * sizeof *b->maps);
    if (b->off == NULL || b->maps == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    total = 0;
    for (size_t c = 0; c < jp->ncomms; c++) {
        const pb_jcomm_t *cm = &jp->comms[c];
        gmap_t *m = b->maps + total;
        int ok = 1;
        for (int k = 0; k < cm->nranks; k++) {
            m[k] = (gmap_t){cm->members[k], k};
            ok &= cm->members[k] >= 0 && cm->members[k] < b->p->world;
        }
        qsort(m, (size_t)cm->nranks, sizeof *m, cmp_gmap);
        for (int k = 1; k < cm->nranks; k++)
            ok &= m[k].global != m[k - 1].global;
        b->p->comms[c].replayable = ok;
        b->p->comms[c].layer = -1;
        b->off[c] = total;
        total += (size_t)cm->nranks;
    }
    b->off[jp->ncomms] = total;
    return PB_OK;
}

static int local_of(const build_t *b, int c, int global)
{
    gmap_t key = {global, 0};
    const gmap_t *m = bsearch(&key, b->maps + b->off[c], b->off[c + 1] - b->off[c], sizeof key,
                              cmp_gmap);
    return m ? m->local : -1;
}

/* Why the records of instance `in` cannot be replayed, or -1. */
static int classify(const build_t *b, const pb_jp_insts_t *x, const pb_jp_inst_t *in)
{
    const pb_jobprof_t *jp = b->jp;
    if (!b->p->comms[in->comm].replayable)
        return PB_RP_SKIP_MEMBERS;
    for (int r = 0; r < in->nrec; r++)
        if (local_of(b, in->comm, jp->ops[x->order[in->first + (size_t)r]].rank) < 0)
            return PB_RP_SKIP_MEMBERS;
    if (!in->known) {
        pb_jkind_t k;
        pb_coll_t c;
        return pb_jp_func(in->func, &k, &c) == 0 ? PB_RP_SKIP_DTYPE : PB_RP_SKIP_FUNC;
    }
    if (in->bytes == 0)
        return PB_RP_SKIP_SIZE;
    if (in->kind != PB_JK_COLL && in->peer < 0)
        return PB_RP_SKIP_UNMATCHED;
    return -1;
}

static int64_t t_issue(const pb_jop_t *o)
{
    return o->t_issue_ns > 0 ? o->t_issue_ns : o->t_start_ns;
}

/* The median of the records' issue times (0: none recorded). */
static int64_t median_issue(const build_t *b, const size_t *rec, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t t = t_issue(&b->jp->ops[rec[i]]);
        if (t > 0)
            b->times[k++] = t;
    }
    if (k == 0)
        return 0;
    qsort(b->times, k, sizeof *b->times, cmp_i64);
    int64_t lo = b->times[(k - 1) / 2], hi = b->times[k / 2];
    return lo + (hi - lo) / 2;
}

static void add_coll(build_t *b, const pb_jp_insts_t *x, const pb_jp_inst_t *in)
{
    const pb_jobprof_t *jp = b->jp;
    pb_replay_plan_t *p = b->p;
    const size_t *rec = &x->order[in->first];
    const pb_jop_t *o = &jp->ops[rec[0]];
    int rooted = pb_coll_rooted(in->coll);
    pb_rp_unit_t *u = &p->units[p->nunits];
    *u = (pb_rp_unit_t){in->comm, in->coll, in->dtype, in->bytes, 0, -1, -1,
                        median_issue(b, rec, (size_t)in->nrec), in->seq, p->nunits};
    if (rooted && o->peer >= 0 && o->peer < jp->comms[in->comm].nranks)
        u->root = o->peer;
    int differ = 0;
    for (int r = 0; r < in->nrec; r++) {
        const pb_jop_t *q = &jp->ops[rec[r]];
        differ |= q->bytes != u->bytes || q->dtype != u->dtype || (rooted && q->peer != o->peer);
        p->unit_of_op[rec[r]] = p->nunits;
    }
    p->mismatched += (uint64_t)differ;
    p->nunits++;
}

/* A send or a receive, for matching. */
static void add_p2p(build_t *b, const pb_jop_t *o, size_t idx)
{
    int me = local_of(b, o->comm, o->rank);
    int send = o->kind == PB_JK_SEND;
    pkey_t k = {o->comm, send ? me : o->peer, send ? o->peer : me, o->seq, t_issue(o), idx, 0};
    if (send)
        b->sends[b->nsends++] = k;
    else
        b->recvs[b->nrecvs++] = k;
}

/* The pair a send or receive is between. */
static int cmp_pair(const pkey_t *a, const pkey_t *b)
{
    int c = order(a->comm, b->comm);
    c = c ? c : order(a->src, b->src);
    return c ? c : order(a->dst, b->dst);
}

/* Between one pair, in the order its side issued them. */
static int cmp_pkey(const void *pa, const void *pb)
{
    const pkey_t *a = pa, *b = pb;
    int c = cmp_pair(a, b);
    c = c ? c : order_u(a->seq, b->seq);
    c = c ? c : order(a->t, b->t);
    return c ? c : order_u(a->op, b->op);
}

static int cmp_nth(const pkey_t *a, const pkey_t *b)
{
    int c = cmp_pair(a, b);
    return c ? c : order_u(a->nth, b->nth);
}

/* Each side in its recorded order between the pair: the n-th. */
static void number(pkey_t *k, size_t n)
{
    if (n > 0) /* qsort wants a valid array even for none */
        qsort(k, n, sizeof *k, cmp_pkey);
    for (size_t i = 0; i < n; i++)
        k[i].nth = i > 0 && cmp_pair(&k[i], &k[i - 1]) == 0 ? k[i - 1].nth + 1 : 0;
}

static void add_pair(build_t *b, const pkey_t *s, const pkey_t *r)
{
    pb_replay_plan_t *p = b->p;
    const pb_jop_t *so = &b->jp->ops[s->op], *ro = &b->jp->ops[r->op];
    size_t rec[2] = {s->op, r->op};
    p->units[p->nunits] = (pb_rp_unit_t){so->comm, PB_SENDRECV, so->dtype, so->bytes, 0, s->src,
                                         s->dst, median_issue(b, rec, 2), so->seq, p->nunits};
    p->mismatched += (uint64_t)(ro->bytes != so->bytes || ro->dtype != so->dtype);
    p->unit_of_op[s->op] = p->unit_of_op[r->op] = p->nunits;
    p->nunits++;
}

/* Both lists are in (comm, src, dst, nth) order after number(): one walk
 * pairs them; what is left over on either side has no other half. */
static void match(build_t *b)
{
    number(b->sends, b->nsends);
    number(b->recvs, b->nrecvs);
    size_t i = 0, j = 0;
    while (i < b->nsends || j < b->nrecvs) {
        int c = i == b->nsends ? 1 : j == b->nrecvs ? -1 : cmp_nth(&b->sends[i], &b->recvs[j]);
        if (c == 0)
            add_pair(b, &b->sends[i], &b->recvs[j]);
        else
            b->p->skipped[PB_RP_SKIP_UNMATCHED]++;
        i += c <= 0;
        j += c >= 0;
    }
}

static int cmp_unit(const void *pa, const void *pb)
{
    const pb_rp_unit_t *a = pa, *b = pb;
    int c = order(a->key_ns, b->key_ns);
    c = c ? c : order(a->comm, b->comm);
    c = c ? c : order_u(a->seq, b->seq);
    c = c ? c : order(a->src, b->src);
    c = c ? c : order(a->dst, b->dst);
    return c ? c : order_u(a->ord, b->ord);
}

/* The total order, and every record's unit renumbered to its place. */
static int sort_units(build_t *b, pb_err_t *err)
{
    pb_replay_plan_t *p = b->p;
    size_t *place = malloc((p->nunits ? p->nunits : 1) * sizeof *place);
    if (place == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    if (p->nunits > 0) /* qsort wants a valid array even for none */
        qsort(p->units, p->nunits, sizeof *p->units, cmp_unit);
    for (size_t i = 0; i < p->nunits; i++)
        place[p->units[i].ord] = i;
    for (size_t i = 0; i < p->nops; i++)
        if (p->unit_of_op[i] != SIZE_MAX)
            p->unit_of_op[i] = place[p->unit_of_op[i]];
    free(place);
    return PB_OK;
}

/* Per communicator: units, bytes, and the slowest member's recorded sum;
 * the slowest rank's sum over every communicator. */
static int comm_stats(build_t *b, pb_err_t *err)
{
    const pb_jobprof_t *jp = b->jp;
    pb_replay_plan_t *p = b->p;
    double *sum = calloc(b->off[jp->ncomms] ? b->off[jp->ncomms] : 1, sizeof *sum);
    double *rank = calloc(p->world > 0 ? (size_t)p->world : 1, sizeof *rank);
    if (sum == NULL || rank == NULL) {
        free(sum);
        free(rank);
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    }
    for (size_t u = 0; u < p->nunits; u++) {
        p->comms[p->units[u].comm].units++;
        p->comms[p->units[u].comm].bytes += p->units[u].bytes;
    }
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        int64_t d = pb_jp_op_dur(o);
        if (p->unit_of_op[i] == SIZE_MAX)
            continue;
        if (d < 0) {
            p->untimed++;
            continue;
        }
        /* a replayed record's rank is a member (classify): in the world */
        sum[b->off[o->comm] + (size_t)local_of(b, o->comm, o->rank)] += (double)d;
        rank[o->rank] += (double)d;
        p->comms[o->comm].timed++;
    }
    for (size_t c = 0; c < jp->ncomms; c++)
        for (size_t k = b->off[c]; k < b->off[c + 1]; k++)
            if (sum[k] * 1e-9 > p->comms[c].recorded_s)
                p->comms[c].recorded_s = sum[k] * 1e-9;
    for (int r = 0; r < p->world; r++)
        if (rank[r] * 1e-9 > p->rank_recorded_s)
            p->rank_recorded_s = rank[r] * 1e-9;
    free(sum);
    free(rank);
    return PB_OK;
}

/* Groups are split from the world, one split per layer, so that a job
 * of many communicators (128 TP groups) costs as many splits as a rank
 * is in communicators, not one per communicator: a layer is communicators
 * that share no rank, filled greedily in communicator order. */
static int make_layers(build_t *b, pb_err_t *err)
{
    pb_replay_plan_t *p = b->p;
    const pb_jobprof_t *jp = b->jp;
    char *used = malloc(p->world > 0 ? (size_t)p->world : 1);
    if (used == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    size_t left = 0;
    for (size_t c = 0; c < p->ncomms; c++)
        left += p->comms[c].units > 0;
    for (int layer = 0; left > 0; layer++) {
        memset(used, 0, p->world > 0 ? (size_t)p->world : 1);
        for (size_t c = 0; c < p->ncomms; c++) {
            const pb_jcomm_t *cm = &jp->comms[c];
            int free_ = p->comms[c].units > 0 && p->comms[c].layer < 0;
            for (int k = 0; k < cm->nranks && free_; k++)
                free_ = !used[cm->members[k]];
            if (!free_)
                continue;
            for (int k = 0; k < cm->nranks; k++)
                used[cm->members[k]] = 1;
            p->comms[c].layer = layer;
            p->nlayers = layer + 1;
            left--;
        }
    }
    free(used);
    return PB_OK;
}

/* Every instance: a unit, a send or receive to match, or skipped. */
static void take_instances(build_t *b, const pb_jp_insts_t *x)
{
    for (size_t i = 0; i < x->n; i++) {
        const pb_jp_inst_t *in = &x->v[i];
        int why = classify(b, x, in);
        if (why >= 0) {
            b->p->skipped[why] += (uint64_t)in->nrec;
            if (why == PB_RP_SKIP_FUNC)
                pb_list_add(b->p->skipped_funcs, sizeof b->p->skipped_funcs, in->func, ", ");
        } else if (in->kind == PB_JK_COLL) {
            add_coll(b, x, in);
        } else {
            for (int r = 0; r < in->nrec; r++)
                add_p2p(b, &b->jp->ops[x->order[in->first + (size_t)r]],
                        x->order[in->first + (size_t)r]);
        }
    }
}

static int nothing_left(const pb_replay_plan_t *p, pb_err_t *err)
{
    char why[320] = "";
    for (int s = 0; s < PB_RP_SKIP_COUNT; s++)
        if (p->skipped[s]) {
            size_t n = strlen(why);
            snprintf(why + n, sizeof why - n, "%s%llu records %s", n ? ", " : "",
                     (unsigned long long)p->skipped[s], pb_rp_skip_text((pb_rp_skip_t)s));
        }
    return pb_err_set(err, PB_EINPUT, "nothing in the recording can be replayed: %s", why);
}

static int alloc_build(build_t *b, const pb_jp_insts_t *x, pb_err_t *err)
{
    pb_replay_plan_t *p = b->p;
    size_t maxrec = 2, n = x->n ? x->n : 1;
    for (size_t i = 0; i < x->n; i++)
        if ((size_t)x->v[i].nrec > maxrec)
            maxrec = (size_t)x->v[i].nrec;
    p->units = malloc(n * sizeof *p->units);
    b->times = malloc(maxrec * sizeof *b->times);
    b->sends = malloc(n * sizeof *b->sends);
    b->recvs = malloc(n * sizeof *b->recvs);
    if (p->units == NULL || b->times == NULL || b->sends == NULL || b->recvs == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    return PB_OK;
}

int pb_rp_build(const pb_jobprof_t *jp, pb_replay_plan_t *p, pb_err_t *err)
{
    memset(p, 0, sizeof *p);
    build_t b;
    memset(&b, 0, sizeof b);
    b.jp = jp;
    b.p = p;
    pb_jp_insts_t x;
    memset(&x, 0, sizeof x);
    p->world = pb_jp_world(jp);
    p->ncomms = jp->ncomms;
    p->nops = jp->nops;
    p->comms = calloc(jp->ncomms ? jp->ncomms : 1, sizeof *p->comms);
    p->unit_of_op = malloc((jp->nops ? jp->nops : 1) * sizeof *p->unit_of_op);
    int code = p->comms && p->unit_of_op
                   ? PB_OK
                   : pb_err_set(err, PB_ERUNTIME, "out of memory planning the replay");
    for (size_t i = 0; code == PB_OK && i < jp->nops; i++)
        p->unit_of_op[i] = SIZE_MAX;
    if (code == PB_OK)
        code = maps_make(&b, err);
    if (code == PB_OK)
        code = pb_jp_insts_build(jp, &x, err);
    if (code == PB_OK)
        code = alloc_build(&b, &x, err);
    if (code == PB_OK) {
        take_instances(&b, &x);
        match(&b);
        code = p->nunits ? sort_units(&b, err) : nothing_left(p, err);
    }
    if (code == PB_OK)
        code = comm_stats(&b, err);
    if (code == PB_OK)
        code = pb_rp_check_whole(p, jp, err);
    if (code == PB_OK)
        code = make_layers(&b, err);
    pb_jp_insts_free(&x);
    free(b.maps);
    free(b.off);
    free(b.times);
    free(b.sends);
    free(b.recvs);
    if (code != PB_OK)
        pb_rp_free(p);
    return code;
}

void pb_rp_free(pb_replay_plan_t *p)
{
    free(p->units);
    free(p->comms);
    free(p->unit_of_op);
    memset(p, 0, sizeof *p);
}

/* pb_jp_inst.c - records joined into operations (pb_jp_inst.h). */
#include "pb_jp_inst.h"

#include <stdlib.h>
#include <string.h>

int64_t pb_jp_op_dur(const pb_jop_t *o)
{
    if (o->gpu_ns >= 0)
        return o->gpu_ns;
    if (o->t_start_ns > 0 && o->t_end_ns >= o->t_start_ns)
        return o->t_end_ns - o->t_start_ns;
    return -1;
}

const char *pb_jp_op_name(int known, pb_jkind_t kind, pb_coll_t coll, const char *func)
{
    if (kind == PB_JK_SEND)
        return "send";
    if (kind == PB_JK_RECV)
        return "recv";
    return known ? pb_coll_name(coll) : func;
}

/* Sort key of one record: who it belongs with, then where. */
typedef struct key {
    const pb_jop_t *o;
    size_t idx;
} rec_key_t;

/* The operation a record is of, ignoring seq and rank: <0, 0, >0. */
static int same_op(const pb_jop_t *a, const pb_jop_t *b)
{
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->known != b->known)
        return a->known < b->known ? -1 : 1;
    if (a->known && a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    return a->known ? 0 : strcmp(a->func, b->func);
}

static int cmp_key(const void *pa, const void *pb)
{
    const pb_jop_t *a = ((const rec_key_t *)pa)->o, *b = ((const rec_key_t *)pb)->o;
    int c = same_op(a, b);
    if (c != 0)
        return c;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    size_t x = ((const rec_key_t *)pa)->idx, y = ((const rec_key_t *)pb)->idx;
    return (x > y) - (x < y);
}

static void start_inst(const pb_jobprof_t *jp, const pb_jop_t *o, size_t first, pb_jp_inst_t *in)
{
    memset(in, 0, sizeof *in);
    in->comm = o->comm;
    in->kind = o->kind;
    in->known = o->known;
    in->coll = o->coll;
    in->dtype = o->dtype;
    memcpy(in->func, o->func, sizeof in->func);
    in->func[sizeof in->func - 1] = '\0';
    in->bytes = o->bytes;
    in->seq = o->seq;
    in->rank = o->kind == PB_JK_COLL ? -1 : o->rank;
    in->peer = -1;
    const pb_jcomm_t *c = &jp->comms[o->comm];
    if (o->kind != PB_JK_COLL && o->peer >= 0 && o->peer < c->nranks)
        in->peer = c->members[o->peer];
    in->first = first;
    in->dur_ns = -1;
}

static void add_rec(const pb_jop_t *o, pb_jp_inst_t *in)
{
    in->nrec++;
    if (o->t_issue_ns > 0 && (in->t_issue_ns == 0 || o->t_issue_ns < in->t_issue_ns))
        in->t_issue_ns = o->t_issue_ns;
    if (o->t_start_ns > 0 && (in->t_start_ns == 0 || o->t_start_ns < in->t_start_ns))
        in->t_start_ns = o->t_start_ns;
    if (o->t_end_ns > in->t_end_ns)
        in->t_end_ns = o->t_end_ns;
    int64_t d = pb_jp_op_dur(o);
    if (d > in->dur_ns)
        in->dur_ns = d;
}

int pb_jp_insts_build(const pb_jobprof_t *jp, pb_jp_insts_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    size_t n = jp->nops;
    rec_key_t *k = malloc((n ? n : 1) * sizeof *k);
    out->order = malloc((n ? n : 1) * sizeof *out->order);
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    if (k == NULL || out->order == NULL || out->v == NULL) {
        free(k);
        pb_jp_insts_free(out);
        return pb_err_set(err, PB_ERUNTIME, "out of memory joining the records");
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (rec_key_t){&jp->ops[i], i};
    if (n > 0) /* qsort wants a valid array even for none */
        qsort(k, n, sizeof *k, cmp_key);
    for (size_t i = 0; i < n; i++) {
        const pb_jop_t *o = k[i].o;
        out->order[i] = k[i].idx;
        /* a collective joins the one before when it is the same operation
         * (function and seq) on the same comm; p2p never joins */
        int join = i > 0 && o->kind == PB_JK_COLL && same_op(k[i - 1].o, o) == 0 &&
                   k[i - 1].o->seq == o->seq;
        if (!join)
            start_inst(jp, o, i, &out->v[out->n++]);
        add_rec(o, &out->v[out->n - 1]);
    }
    out->norder = n;
    free(k);
    return PB_OK;
}

void pb_jp_insts_free(pb_jp_insts_t *x)
{
    free(x->v);
    free(x->order);
    memset(x, 0, sizeof *x);
}

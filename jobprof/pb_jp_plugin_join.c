/* pb_jp_plugin_join.c - the plugin's files joined into one job:
 * communicators and their members, operations (pb_jp_plugin.h), once
 * each file's global rank is known (pb_jp_plugin_rank.h). */
#include "pb_jp_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_bounds.h"
#include "pb_jp_plugin_rank.h"

static int by_enqueue(const void *a, const void *b)
{
    const pb_prof_rec_t *x = a, *y = b;
    if (x->t_enq0 != y->t_enq0)
        return x->t_enq0 < y->t_enq0 ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One record as an operation of global rank `rank` on communicator c.
 * Its seq is the record's: NCCL's seqNumber for a collective (per
 * communicator and function, the same on every member), so the members'
 * records of one collective meet by number (pb_jp_inst.h) and a record
 * missing on one rank leaves that collective incomplete instead of
 * shifting every later one; a send's or receive's is the plugin's count on
 * that rank, in issue order. */
static void to_op(const pb_prof_rec_t *r, int rank, int c, int nranks, pb_jop_t *op)
{
    memset(op, 0, sizeof *op);
    op->rank = rank;
    op->comm = c;
    op->seq = r->seq;
    snprintf(op->func, sizeof op->func, "%s", r->func);
    snprintf(op->dtype_name, sizeof op->dtype_name, "%s", r->dtype);
    int fn = pb_jp_func(r->func, &op->kind, &op->coll);
    op->known = fn == 0 && pb_jp_dtype(r->dtype, &op->dtype) == 0;
    if (fn != 0)
        op->kind = r->kind == PB_PROF_REC_P2P ? PB_JK_SEND : PB_JK_COLL;
    op->count = r->count;
    op->bytes = op->known ? pb_jp_bytes(op->coll, nranks, pb_dtype_size(op->dtype), r->count) : 0;
    op->peer = r->peer;
    op->t_issue_ns = (int64_t)r->t_enq0;
    op->t_start_ns = (int64_t)r->t_k0;
    op->t_end_ns = (int64_t)r->t_k1;
    op->gpu_ns = r->g0 && r->g1 >= r->g0 ? (int64_t)(r->g1 - r->g0) : -1;
    snprintf(op->algo, sizeof op->algo, "%s", r->algo);
    snprintf(op->proto, sizeof op->proto, "%s", r->proto);
    op->nchannels = r->nchannels;
}

/* A communicator's size where NCCL gave none (v3): how many files carry
 * its id, or its highest recorded rank + 1 where a member's file is
 * missing (v3's rank comes from an operation: pb_prof_rec.h). */
static int comm_size(const pb_jp_plugin_t *pl, uint64_t id)
{
    int n = 0, top = 0;
    for (size_t i = 0; i < pl->n; i++) {
        const pb_prof_head_t *h = &pl->files[i].head;
        n += h->comm_id == id;
        if (h->comm_id == id && h->rank >= top)
            top = h->rank + 1; /* below PB_JP_MAX_RANKS (pb_jp_plugin_read): fits */
    }
    return n > top ? n : top;
}

/* A unit holding two ranks of one communicator: NCCL gives one GPU one
 * rank of a communicator, so the files are of a process whose ranks were
 * not told apart - no device recorded (pb_jp_plugin_rank.h) - and can
 * only be joined wrongly.  PB_EINPUT, or PB_OK. */
static int one_rank_each(const pb_jp_pfile_t *f, const pb_jcomm_t *cm, int r, int g,
                         pb_err_t *err)
{
    for (int k = 0; k < cm->nranks; k++) {
        if (k == r || cm->members[k] != g)
            continue;
        if (f->head.device >= 0)
            return pb_err_set(err, PB_EINPUT, "%s: communicator %016llx ranks %d and %d both on "
                              "device %d of %s pid %d", f->name, (unsigned long long)f->head.comm_id,
                              k, r, f->head.device, f->head.host, f->head.pid);
        return pb_err_set(err, PB_EINPUT, "%s: communicator %016llx ranks %d and %d both in %s pid "
                          "%d, whose files name no device to tell its ranks apart (recorded "
                          "before profiler format 3?)", f->name,
                          (unsigned long long)f->head.comm_id, k, r, f->head.host, f->head.pid);
    }
    return PB_OK;
}

/* One file's communicator: its index, this process's member slot set. */
static int place_member(const pb_jp_plugin_t *pl, const pb_jp_pfile_t *f, int g,
                        pb_jobprof_t *jp, pb_err_t *err)
{
    const pb_prof_head_t *h = &f->head;
    int n = h->nranks > 0 ? h->nranks : comm_size(pl, h->comm_id);
    int c = pb_jp_comm(jp, h->comm_id, h->comm_name, n, err);
    if (c < 0)
        return -1;
    pb_jcomm_t *cm = &jp->comms[c];
    if (h->nnodes > 0)
        cm->nnodes = h->nnodes;
    int r = h->rank;
    if (r < 0) /* v3: no rank; fill the first free slot, put in order below */
        for (r = 0; r < n && cm->members[r] >= 0; r++)
            ;
    if (r >= n || (cm->members[r] >= 0 && cm->members[r] != g)) {
        pb_err_set(err, PB_EINPUT, "%s: communicator %016llx rank %d taken twice "
                   "(global ranks %d and %d)", f->name, (unsigned long long)h->comm_id,
                   h->rank, r < n ? cm->members[r] : -1, g);
        return -1;
    }
    if (h->rank >= 0 && one_rank_each(f, cm, r, g, err) != PB_OK)
        return -1;
    cm->members[r] = g;
    return c;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* pb_jp_inst's key of a collective within one rank's communicator,
 * (function, seq), then issue order. */
static int by_func_seq(const void *pa, const void *pb)
{
    const pb_jop_t *a = *(const pb_jop_t *const *)pa, *b = *(const pb_jop_t *const *)pb;
    if (a->known != b->known)
        return a->known < b->known ? -1 : 1;
    int c = a->known ? (a->coll > b->coll) - (a->coll < b->coll) : strcmp(a->func, b->func);
    if (c == 0)
        c = (a->seq > b->seq) - (a->seq < b->seq);
    return c ? c : (a > b) - (a < b); /* jp->ops holds them in issue order */
}

/* One file's operations, jp->ops[from..]: collectives that share a
 * (function, number).  NCCL leaves a communicator's number where it was
 * for a collective captured in a CUDA graph (enqueue.cc counts seqNumber
 * for a persistent plan only when group or API events are on, which this
 * plugin does not ask for), so one rank's records can repeat a number;
 * every rank captures the same graph in the same order, so the n-th
 * repeat joins the other ranks' n-th: it is numbered seq + n x 2^48 (a
 * number NCCL never reaches: pb_jp_plugin_read refuses one past 2^48). */
static int number_repeats(const pb_jp_pfile_t *f, pb_jobprof_t *jp, size_t from, pb_err_t *err)
{
    pb_jop_t **v = malloc((jp->nops - from + 1) * sizeof *v);
    if (v == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", f->name);
    size_t n = 0;
    for (size_t k = from; k < jp->nops; k++)
        if (jp->ops[k].kind == PB_JK_COLL)
            v[n++] = &jp->ops[k];
    if (n > 0) /* qsort wants a valid array even for none */
        qsort(v, n, sizeof *v, by_func_seq);
    int code = PB_OK;
    uint64_t base = 0, rep = 0;
    for (size_t k = 0; k < n && code == PB_OK; k++) {
        const pb_jop_t *p = k ? v[k - 1] : NULL;
        int same = p && p->known == v[k]->known && base == v[k]->seq &&
                   (p->known ? p->coll == v[k]->coll : strcmp(p->func, v[k]->func) == 0);
        rep = same ? rep + 1 : 0;
        base = v[k]->seq;
        if (rep >= PB_JP_SEQ_REPEATS)
            code = pb_err_set(err, PB_EINPUT, "%s: %s number %llu recorded %llu times or more",
                              f->name, v[k]->func, (unsigned long long)base,
                              (unsigned long long)PB_JP_SEQ_REPEATS);
        v[k]->seq = base + (rep << PB_JP_SEQ_BITS);
    }
    free(v);
    return code;
}

/* nccl-tests' size of a record on an n-rank communicator within 2^62
 * bytes (pb_jp_bounds.h, as every reader checks it): count x element
 * size (x n for all-gather and reduce-scatter), checked as a division. */
static int size_fits(const pb_jop_t *op, int n)
{
    if (!op->known)
        return 1;
    uint64_t per = (uint64_t)pb_dtype_size(op->dtype) *
                   (op->coll == PB_ALLGATHER || op->coll == PB_REDUCESCATTER ? (uint64_t)n : 1u);
    return per == 0 || op->count <= (uint64_t)PB_JP_MAX_COUNT / per;
}

/* Every file's records as operations, in each file's issue order. */
static int add_ops(pb_jp_plugin_t *pl, const int *grank, const int *comm_of, pb_jobprof_t *jp,
                   pb_err_t *err)
{
    int code = PB_OK;
    for (size_t i = 0; i < pl->n && code == PB_OK; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        if (f->n > 0) /* qsort wants a valid array even for none */
            qsort(f->recs, f->n, sizeof *f->recs, by_enqueue);
        int n = jp->comms[comm_of[i]].nranks;
        size_t from = jp->nops;
        for (size_t k = 0; k < f->n && code == PB_OK; k++) {
            pb_jop_t op;
            to_op(&f->recs[k], grank[f->proc], comm_of[i], n, &op);
            if (!size_fits(&op, n))
                code = pb_err_set(err, PB_EINPUT, "%s: %s of %llu elements of %s on %d ranks: "
                                  "more than 2^62 bytes", f->name, op.func,
                                  (unsigned long long)op.count, op.dtype_name, n);
            else
                code = pb_jp_add_op(jp, &op, err);
        }
        if (code == PB_OK)
            code = number_repeats(f, jp, from, err);
    }
    return code;
}

int pb_jp_plugin_join(pb_jp_plugin_t *pl, pb_jobprof_t *jp, pb_err_t *err)
{
    if (pl->n == 0)
        return pb_err_set(err, PB_EINPUT, "no profiler record files");
    int *grank = malloc(pl->n * sizeof *grank);
    int *comm_of = malloc(pl->n * sizeof *comm_of);
    int code = grank && comm_of ? PB_OK : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (code == PB_OK)
        code = pb_jp_plugin_ranks(pl, grank, jp, err);
    for (size_t i = 0; i < pl->n && code == PB_OK; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        comm_of[i] = place_member(pl, f, grank[f->proc], jp, err);
        code = comm_of[i] < 0 ? (err->code ? err->code : PB_EINPUT) : PB_OK;
        if ((int)f->head.every > jp->every)
            jp->every = (int)f->head.every;
    }
    /* v3 communicators (no ranks recorded): members in global rank order */
    for (size_t i = 0; i < pl->n && code == PB_OK; i++)
        if (pl->files[i].head.rank < 0)
            qsort(jp->comms[comm_of[i]].members, (size_t)jp->comms[comm_of[i]].nranks,
                  sizeof(int), by_int);
    if (code == PB_OK)
        code = add_ops(pl, grank, comm_of, jp, err);
    jp->dropped += pl->dropped;
    jp->impossible += pl->impossible;
    jp->truncated += pl->truncated;
    snprintf(jp->source, sizeof jp->source, "nccl-plugin");
    free(grank);
    free(comm_of);
    return code;
}

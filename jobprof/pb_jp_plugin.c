/* pb_jp_plugin.c - the plugin's files read and joined (pb_jp_plugin.h). */
#include "pb_jp_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/pb_grow.h"

int pb_jp_is_plugin(const void *data, size_t len)
{
    return len >= 8 && memcmp(data, PB_PROF_MAGIC, 8) == 0;
}

int pb_jp_plugin_read(pb_jp_plugin_t *pl, const char *name, const void *data, size_t len,
                      pb_err_t *err)
{
    pb_prof_head_t h;
    if (!pb_jp_is_plugin(data, len) || len < sizeof h)
        return pb_err_set(err, PB_EINPUT, "%s: not a parbench profiler record file", name);
    memcpy(&h, data, sizeof h);
    /* A file written on a machine of the other byte order reads its small
     * version number as a huge one. */
    if (h.version > 0xffffu)
        return pb_err_set(err, PB_EINPUT, "%s: written on a machine of the other byte order",
                          name);
    if (h.version < 1 || h.version > PB_PROF_VERSION || h.rec_size != sizeof(pb_prof_rec_t))
        return pb_err_set(err, PB_EINPUT,
                          "%s: record format %u with %u-byte records; this parbench reads "
                          "formats 1-%d with %zu-byte records",
                          name, h.version, h.rec_size, PB_PROF_VERSION, sizeof(pb_prof_rec_t));
    if (h.version < 2) /* format 1 had no world rank: its bytes were padding */
        h.world_rank = h.world_size = -1;
    h.comm_name[sizeof h.comm_name - 1] = '\0';
    h.host[sizeof h.host - 1] = '\0';
    if (pb_grow((void **)&pl->files, &pl->cap, pl->n + 1, sizeof *pl->files, 16) != 0)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", name);
    size_t nrec = (len - sizeof h) / sizeof(pb_prof_rec_t);
    pl->truncated += (len - sizeof h) % sizeof(pb_prof_rec_t) != 0;
    pb_jp_pfile_t *f = &pl->files[pl->n];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->head = h;
    f->recs = nrec ? malloc(nrec * sizeof *f->recs) : NULL;
    if (nrec && f->recs == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", name);
    const unsigned char *p = (const unsigned char *)data + sizeof h;
    for (size_t i = 0; i < nrec; i++) {
        pb_prof_rec_t r;
        memcpy(&r, p + i * sizeof r, sizeof r);
        if (r.kind == PB_PROF_REC_END) {
            pl->dropped += r.count;
            continue;
        }
        if (r.kind != PB_PROF_REC_COLL && r.kind != PB_PROF_REC_P2P) {
            free(f->recs);
            return pb_err_set(err, PB_EINPUT, "%s: record %zu is of no known kind (%u)", name,
                              i + 1, r.kind);
        }
        r.func[sizeof r.func - 1] = r.dtype[sizeof r.dtype - 1] = '\0';
        r.algo[sizeof r.algo - 1] = r.proto[sizeof r.proto - 1] = '\0';
        f->recs[f->n++] = r;
    }
    pl->n++;
    return PB_OK;
}

void pb_jp_plugin_free(pb_jp_plugin_t *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->files[i].recs);
    free(pl->files);
    memset(pl, 0, sizeof *pl);
}

/* The processes, (host, pid) apart: f->proc for every file; their count. */
static int number_procs(pb_jp_plugin_t *pl, pb_jp_pfile_t **first)
{
    int np = 0;
    for (size_t i = 0; i < pl->n; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        f->proc = -1;
        for (int k = 0; k < np && f->proc < 0; k++)
            if (first[k]->head.pid == f->head.pid && strcmp(first[k]->head.host, f->head.host) == 0)
                f->proc = k;
        if (f->proc < 0) {
            first[np] = f;
            f->proc = np++;
        }
    }
    return np;
}

static int by_host_pid(const void *a, const void *b)
{
    const pb_jp_pfile_t *x = *(pb_jp_pfile_t *const *)a, *y = *(pb_jp_pfile_t *const *)b;
    int c = strcmp(x->head.host, y->head.host);
    return c ? c : (x->head.pid > y->head.pid) - (x->head.pid < y->head.pid);
}

/* A communicator every process has a file of, with distinct ranks
 * 0..np-1: its ranks are the global ones (the job's world communicator).
 * 0 and grank filled, or -1. */
static int ranks_from_world_comm(const pb_jp_plugin_t *pl, int np, int *grank)
{
    for (size_t i = 0; i < pl->n; i++) {
        const pb_prof_head_t *h = &pl->files[i].head;
        if (h->nranks != np)
            continue;
        for (int k = 0; k < np; k++)
            grank[k] = -1;
        int ok = 1;
        for (size_t j = 0; j < pl->n && ok; j++) {
            const pb_jp_pfile_t *f = &pl->files[j];
            if (f->head.comm_id != h->comm_id)
                continue;
            int r = f->head.rank;
            ok = r >= 0 && r < np && grank[f->proc] < 0;
            for (int k = 0; k < np && ok; k++)
                ok = grank[k] != r;
            if (ok)
                grank[f->proc] = r;
        }
        for (int k = 0; k < np && ok; k++)
            ok = grank[k] >= 0;
        if (ok)
            return 0;
    }
    return -1;
}

/* Every process's global rank (the rules in pb_jp_plugin.h). */
static int global_ranks(pb_jp_plugin_t *pl, pb_jp_pfile_t **first, int np, int *grank,
                        pb_jobprof_t *jp, pb_err_t *err)
{
    int all = 1;
    for (int k = 0; k < np; k++) {
        grank[k] = first[k]->head.world_rank;
        all &= grank[k] >= 0;
    }
    if (!all && ranks_from_world_comm(pl, np, grank) != 0) {
        qsort(first, (size_t)np, sizeof *first, by_host_pid);
        for (int k = 0; k < np; k++)
            grank[first[k]->proc] = k;
        jp->ranks_guessed = 1;
    }
    for (size_t i = 0; i < pl->n; i++) {
        const pb_jp_pfile_t *f = &pl->files[i];
        for (size_t j = 0; j < i; j++) {
            const pb_jp_pfile_t *g = &pl->files[j];
            if (g->proc != f->proc && grank[g->proc] == grank[f->proc])
                return pb_err_set(err, PB_EINPUT, "%s and %s: two processes (%s pid %d, %s pid %d) "
                                  "both global rank %d",
                                  g->name, f->name, g->head.host, g->head.pid, f->head.host,
                                  f->head.pid, grank[f->proc]);
        }
    }
    return PB_OK;
}

static int by_enqueue(const void *a, const void *b)
{
    const pb_prof_rec_t *x = a, *y = b;
    if (x->t_enq0 != y->t_enq0)
        return x->t_enq0 < y->t_enq0 ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One record as an operation of global rank `rank` on communicator c. */
static void to_op(const pb_prof_rec_t *r, int rank, int c, int nranks, uint64_t seq, pb_jop_t *op)
{
    memset(op, 0, sizeof *op);
    op->rank = rank;
    op->comm = c;
    op->seq = seq;
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

/* How many files carry communicator id: its size where NCCL gave none (v3). */
static int files_of(const pb_jp_plugin_t *pl, uint64_t id)
{
    int n = 0;
    for (size_t i = 0; i < pl->n; i++)
        n += pl->files[i].head.comm_id == id;
    return n;
}

/* One file's communicator: its index, this process's member slot set. */
static int place_member(const pb_jp_plugin_t *pl, const pb_jp_pfile_t *f, int g,
                        pb_jobprof_t *jp, pb_err_t *err)
{
    const pb_prof_head_t *h = &f->head;
    int n = h->nranks > 0 ? h->nranks : files_of(pl, h->comm_id);
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
    cm->members[r] = g;
    return c;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int pb_jp_plugin_join(pb_jp_plugin_t *pl, pb_jobprof_t *jp, pb_err_t *err)
{
    if (pl->n == 0)
        return pb_err_set(err, PB_EINPUT, "no profiler record files");
    pb_jp_pfile_t **first = malloc(pl->n * sizeof *first);
    int *grank = malloc(pl->n * sizeof *grank);
    int *comm_of = malloc(pl->n * sizeof *comm_of);
    int code = first && grank && comm_of ? PB_OK
                                         : pb_err_set(err, PB_ERUNTIME, "out of memory");
    int np = code == PB_OK ? number_procs(pl, first) : 0;
    if (code == PB_OK)
        code = global_ranks(pl, first, np, grank, jp, err);
    for (size_t i = 0; i < pl->n && code == PB_OK; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        comm_of[i] = place_member(pl, f, grank[f->proc], jp, err);
        code = comm_of[i] < 0 ? (err->code ? err->code : PB_EINPUT) : PB_OK;
        if (f->head.world_size > jp->world)
            jp->world = f->head.world_size;
        if (grank[f->proc] + 1 > jp->world)
            jp->world = grank[f->proc] + 1;
        if ((int)f->head.every > jp->every)
            jp->every = (int)f->head.every;
    }
    /* v3 communicators (no ranks recorded): members in global rank order */
    for (size_t i = 0; i < pl->n && code == PB_OK; i++)
        if (pl->files[i].head.rank < 0)
            qsort(jp->comms[comm_of[i]].members, (size_t)jp->comms[comm_of[i]].nranks,
                  sizeof(int), by_int);
    for (size_t i = 0; i < pl->n && code == PB_OK; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        if (f->n > 0) /* qsort wants a valid array even for none */
            qsort(f->recs, f->n, sizeof *f->recs, by_enqueue);
        int n = jp->comms[comm_of[i]].nranks;
        for (size_t k = 0; k < f->n && code == PB_OK; k++) {
            pb_jop_t op;
            to_op(&f->recs[k], grank[f->proc], comm_of[i], n, k, &op);
            code = pb_jp_add_op(jp, &op, err);
        }
    }
    jp->dropped += pl->dropped;
    snprintf(jp->source, sizeof jp->source, "nccl-plugin");
    free(first);
    free(grank);
    free(comm_of);
    return code;
}

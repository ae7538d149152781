/* pb_jp_kineto_gloo.c - the gloo form of a PyTorch trace: operations no
 * record_param_comms describes (ProcessGroupGloo records none), read from
 * two events each:
 *
 *   c10d::<op>   the dispatcher's CPU op on the calling thread: what was
 *                called, when ("Input Dims", "Input type" with
 *                record_shapes=True; "Concrete Inputs" holds a broadcast's
 *                root) - but not on which process group: the group
 *                argument is recorded as "";
 *   gloo:<op>    the work's RecordFunction on the group's worker thread,
 *                begun when a worker takes the work and ended when it
 *                finishes (ProcessGroupGloo::AsyncWork::execute): when it
 *                ran.  gloo's reduce_scatter_tensor runs as gloo:all_reduce
 *                over the whole input (torch 2.15: the library has no
 *                "gloo:reduce_scatter" title).
 *
 * A c10d op is paired with the first unclaimed gloo event that starts
 * after it, of a matching function (reduce-scatter also matches
 * all_reduce) and whose input size is one of the op's tensors'.  That is
 * exact for synchronous calls, the common case; asynchronous calls of one
 * function and size on two groups issued before either starts may be
 * paired crosswise.
 *
 * Which group a worker thread serves is not in the trace; it is inferred.
 * ProcessGroupGloo starts 2 worker threads per device in its constructor
 * (torch/csrc/distributed/c10d/init.cpp: options->threads =
 * options->devices.size() * 2; one device unless GLOO_SOCKET_IFNAME names
 * several), and the process makes its groups one after another in the
 * order distributedInfo.pg_config lists them (_get_all_pg_configs walks
 * _world.pg_map, which keeps creation order).  Linux thread ids grow with
 * creation, so the rank's worker threads sorted by id are its gloo groups'
 * in pg_config order, two each.  Consecutive ids do not mark a group: the
 * ids are system-wide and the other ranks on the node make their threads
 * at the same moment (tests/fixtures/pytorch/gloo-tp2-dp2 shows it).  So
 * every worker thread must appear in the trace - exactly two per gloo
 * group - or the trace is refused, naming the counts (a trace that also
 * holds NCCL-form operations keeps them and counts its gloo ones in
 * jp->dropped: an NCCL job's gloo groups are a side matter, Megatron's
 * checkpointing ones); and an all-gather's or reduce-scatter's
 * output-to-input ratio, or the length of an all-to-all's split-size
 * lists, must be its group's size.  A process with one
 * gloo group needs none of this: everything is that group's.  Sends and
 * receives run on the caller's thread, not a worker's (their gloo:send
 * and gloo:recv events are there); their group is told only when there
 * is one, and with several they are counted in jp->dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_kineto_priv.h"

#define GLOO_THREADS 2 /* worker threads of one gloo group, one device */
#define GLOO_MAX_FIT 12 /* gloo groups whose idle threads are worked out */

/* The first event of s (sorted by start) starting at t or later. */
static size_t first_from(const pb_kevs_t *s, int64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].t0 < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether the c10d op at c holds a record_param_comms on its thread (the
 * NCCL form then describes it). */
static int has_rpc(const pb_kt_t *kt, const pb_kev_t *c)
{
    for (size_t i = first_from(&kt->rpc, c->t0); i < kt->rpc.n && kt->rpc.v[i].t0 <= c->t1; i++)
        if (kt->rpc.v[i].tid == c->tid)
            return 1;
    return 0;
}

/* The gloo event that ran the op at c, claimed; NULL when none is in the
 * trace. */
static pb_kev_t *worker_event(pb_kt_t *kt, const pb_kev_t *c)
{
    char cf[48], gf[48];
    pb_kt_family(c->name, cf, sizeof cf);
    int64_t a0 = pb_kt_arg_numel(c->args, 0), a1 = pb_kt_arg_numel(c->args, 1);
    for (size_t i = first_from(&kt->gloo, c->t0); i < kt->gloo.n; i++) {
        pb_kev_t *g = &kt->gloo.v[i];
        if (g->used)
            continue;
        pb_kt_family(g->name, gf, sizeof gf);
        int rs_as_ar = strcmp(cf, "reducescatter") == 0 && strcmp(gf, "allreduce") == 0;
        if (strcmp(cf, gf) != 0 && !rs_as_ar)
            continue;
        int64_t n = pb_kt_arg_numel(g->args, 0);
        if (n >= 0 && n != a0 && n != a1)
            continue;
        g->used = 1;
        return g;
    }
    return NULL;
}

static int by_tid(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether tid issued c10d ops: a caller's thread, not a worker's.
 * ProcessGroupGloo runs sends and receives on the caller's thread (their
 * gloo:send / gloo:recv events are there: tests/fixtures/pytorch/
 * gloo-pp2-1f1b), not on the group's workers. */
static int caller_tid(const pb_kt_t *kt, int64_t tid)
{
    for (size_t i = 0; i < kt->c10d.n; i++)
        if (kt->c10d.v[i].tid == tid)
            return 1;
    return 0;
}

/* The rank's worker threads, sorted, one per id; NULL with *n 0 when none. */
static int64_t *worker_tids(const pb_kt_t *kt, size_t *n)
{
    int64_t *t = malloc((kt->gloo.n + 1) * sizeof *t);
    size_t k = 0;
    for (size_t i = 0; t && i < kt->gloo.n; i++)
        if (!caller_tid(kt, kt->gloo.v[i].tid))
            t[k++] = kt->gloo.v[i].tid;
    if (t)
        qsort(t, k, sizeof *t, by_tid);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || t[u - 1] != t[i])
            t[u++] = t[i];
    *n = u;
    return t;
}

/* The group whose worker thread is tid (tids: the sorted worker threads,
 * map: each one's group, an index into kt->groups); with one gloo group,
 * that one, whichever thread ran the work (the caller's for a send or
 * receive); NULL when it cannot be told: a send or receive, with several
 * groups. */
static pb_kgroup_t *thread_group(pb_kt_t *kt, const int64_t *tids, const size_t *map,
                                 size_t ntids, int64_t tid, size_t ngloo)
{
    size_t w = 0;
    while (w < ntids && tids[w] != tid)
        w++;
    if (ngloo == 1) {
        for (size_t i = 0; i < kt->ngroups; i++)
            if (kt->groups[i].gloo)
                return &kt->groups[i];
    }
    return w < ntids ? &kt->groups[map[w]] : NULL;
}

/* The group size an op's sizes say: a base gather's output over its
 * input, a base scatter's input over its output, a base all-to-all's
 * split sizes (one per rank of the group: alltoall_base_(output, input,
 * pg, output_split_sizes, input_split_sizes, ...), recorded in "Concrete
 * Inputs"; torch's functional all_to_all_single fills them in even for
 * equal splits); 0 they say none, -1 no whole size. */
static int64_t implied_size(const pb_kev_t *c)
{
    char fam[48];
    pb_kt_family(c->name, fam, sizeof fam);
    if (strstr(c->name, "_base_") == NULL)
        return 0;
    if (strcmp(fam, "alltoall") == 0) {
        const json_t *ci = json_object_get(c->args, "Concrete Inputs");
        int64_t o = pb_kt_list_len(json_string_value(json_array_get(ci, 3)));
        int64_t i = pb_kt_list_len(json_string_value(json_array_get(ci, 4)));
        return o && i && o != i ? -1 : o ? o : i;
    }
    int rs = strcmp(fam, "reducescatter") == 0;
    if (!rs && strcmp(fam, "allgather") != 0)
        return 0;
    int64_t out = pb_kt_arg_numel(c->args, 0), in = pb_kt_arg_numel(c->args, 1);
    int64_t big = rs ? in : out, small = rs ? out : in;
    if (big <= 0 || small <= 0)
        return 0;
    return big % small == 0 ? big / small : -1;
}

/* The count by the header's convention - what one rank gives, a
 * reduce-scatter's what it receives - from the c10d op's arguments:
 * (output, input) for the gathers, all-to-all and reduce-scatter
 * (Ops.cpp's schemas), the tensors first for the others. */
static void gloo_count(const pb_kev_t *c, const char *fam, pb_kgroup_t *g, pb_jop_t *op,
                       int *ratio_bad)
{
    int takes_input = strcmp(fam, "allgather") == 0 || strcmp(fam, "alltoall") == 0 ||
                      strcmp(fam, "gather") == 0;
    int64_t out = pb_kt_arg_numel(c->args, 0), in = pb_kt_arg_numel(c->args, 1);
    int64_t n = takes_input ? in : out;
    op->count = n > 0 ? (uint64_t)n : 0;
    /* the one check of the thread-to-group inference the trace allows:
     * the group size a base op's sizes say (implied_size) */
    int64_t said = implied_size(c);
    if (said != 0 && said != g->size)
        *ratio_bad = 1;
}

/* A broadcast's or reduce's root, a send's or receive's peer: group ranks
 * in "Concrete Inputs" (Ops.cpp: broadcast_(tensors, pg, root_rank, ...),
 * reduce_(tensors, pg, op, root_rank, ...), send(tensors, pg, dstRank,
 * tag), recv_(tensors, pg, srcRank, tag)). */
static int gloo_peer(const pb_kev_t *c, const char *fam)
{
    size_t at = strcmp(fam, "reduce") == 0 ? 3
                : strcmp(fam, "broadcast") == 0 || strcmp(fam, "send") == 0 ||
                          strcmp(fam, "recv") == 0
                    ? 2
                    : 0;
    const char *v = at ? json_string_value(json_array_get(
                             json_object_get(c->args, "Concrete Inputs"), at))
                       : NULL;
    char *end;
    long r = v && v[0] ? strtol(v, &end, 10) : -1;
    return v && v[0] && *end == '\0' && r >= 0 && r < (1L << 24) ? (int)r : -1;
}

static int gloo_op(pb_kt_t *kt, const pb_kev_t *c, const pb_kev_t *w, pb_kgroup_t *g,
                   pb_err_t *err)
{
    char fam[48];
    pb_kt_family(c->name, fam, sizeof fam);
    pb_jop_t op = {.rank = kt->rank, .gpu_ns = -1, .t_issue_ns = c->t0, .t_start_ns = w->t0,
                   .t_end_ns = w->t1};
    if ((op.comm = pb_kt_comm(kt, g, err)) < 0)
        return err->code;
    int bad = 0;
    gloo_count(c, fam, g, &op, &bad);
    if (bad)
        return pb_err_set(err, PB_EINPUT, "%s: %s's sizes say its group is not '%s' (%d ranks), "
                          "the group its gloo worker thread was taken to serve", kt->name,
                          c->name, g->name, g->size);
    op.peer = gloo_peer(c, fam);
    op.peer = op.peer < g->size ? op.peer : -1; /* a group rank, or not known */
    /* the type: the op's tensor argument, or for a list the worker's */
    const char *t = pb_kt_arg_type(c->args, strcmp(fam, "allgather") == 0 ? 1 : 0);
    if (t == NULL)
        t = pb_kt_arg_type(w->args, 0);
    return pb_kt_add(kt, &op, c->name, t, err);
}

/* ---- which worker threads are which group's ------------------------
 *
 * Threads sorted by id are the gloo groups' in pg_config order, two each
 * (the file's comment).  A group idle in the window shows fewer: then
 * every way to hand the threads seen, in order, to the groups, at most
 * two each, is tried against what the threads ran - a base gather's or
 * scatter's output-to-input ratio is its group's size, as an all-to-all's
 * split lists' length is - and the threads are placed only when exactly
 * one way fits.  Ways that differ only between groups of the same
 * members count as one: nothing in a trace tells such groups apart, and
 * what is counted is the same (the first such group in pg_config order
 * takes their work, on every rank alike; DeepSpeed's data-parallel group
 * is the whole world beside the default group).  (A 2-D torchtitan job's
 * default group sends nothing in a step; its TP and FSDP groups' gathers
 * place them.  An MoE job's loss group all-reduces once a step, on one of
 * its threads; its EP group's all-to-alls tell it from the expert-FSDP
 * group of the same size.) */

typedef struct fit {
    const int64_t *need; /* per thread: the size its work says, 0 none, -1 conflicting */
    const int *gsize;    /* per gloo group, in pg_config order */
    /* per gloo group: the first group with the same members (itself if
     * none): placements that differ only between such groups are one */
    const size_t *same;
    size_t nt, ng;
    size_t *cur, *best;  /* per thread: its gloo group's place */
    int found;           /* ways that fit, counted to 2 */
} fit_t;

static void fit_from(fit_t *f, size_t t, size_t g, int fill)
{
    if (f->found > 1)
        return;
    if (t == f->nt) {
        int other = f->found > 0;
        for (size_t w = 0; other && w < f->nt; w++)
            other = f->same[f->cur[w]] == f->same[f->best[w]];
        if (f->found == 0)
            memcpy(f->best, f->cur, f->nt * sizeof *f->cur);
        f->found += f->found == 0 || !other;
        return;
    }
    for (size_t k = g; k < f->ng; k++) {
        int held = k == g ? fill : 0;
        if (held >= GLOO_THREADS || (f->need[t] != 0 && f->need[t] != f->gsize[k]))
            continue;
        f->cur[t] = k;
        fit_from(f, t + 1, k, held + 1);
    }
}

/* map[w]: the group (index into kt->groups) of worker thread tids[w],
 * given each lone c10d op's worker event (wk); *ways: how many
 * placements fit (1: map is set). */
static int place_threads(pb_kt_t *kt, const int64_t *tids, size_t ntids, pb_kev_t *const *wk,
                         size_t *map, int *ways)
{
    size_t ng = 0, *gidx = malloc((kt->ngroups + 1) * sizeof *gidx);
    int *gsize = malloc((kt->ngroups + 1) * sizeof *gsize);
    int64_t *need = calloc(ntids + 1, sizeof *need);
    size_t *cur = malloc((ntids + 1) * sizeof *cur), *best = malloc((ntids + 1) * sizeof *best);
    size_t *same = malloc((kt->ngroups + 1) * sizeof *same);
    int rc = gidx && gsize && need && cur && best && same ? PB_OK : PB_ERUNTIME;
    for (size_t i = 0; rc == PB_OK && i < kt->ngroups; i++)
        if (kt->groups[i].gloo) {
            gidx[ng] = i;
            gsize[ng++] = kt->groups[i].size;
        }
    for (size_t j = 0; rc == PB_OK && j < ng; j++) {
        const pb_kgroup_t *b = &kt->groups[gidx[j]];
        same[j] = j;
        for (size_t i = 0; i < j && same[j] == j; i++) {
            const pb_kgroup_t *a = &kt->groups[gidx[i]];
            if (a->size == b->size && a->ranks && b->ranks &&
                memcmp(a->ranks, b->ranks, (size_t)a->size * sizeof *a->ranks) == 0)
                same[j] = same[i];
        }
    }
    for (size_t i = 0; rc == PB_OK && i < kt->c10d.n; i++) {
        size_t w = 0;
        while (wk[i] && w < ntids && tids[w] != wk[i]->tid)
            w++;
        int64_t s = wk[i] && w < ntids ? implied_size(&kt->c10d.v[i]) : 0;
        if (s != 0)
            need[w] = need[w] == 0 || need[w] == s ? s : -1;
    }
    if (rc == PB_OK) {
        fit_t f = {need, gsize, same, ntids, ng, cur, best, 0};
        fit_from(&f, 0, 0, 0);
        *ways = f.found;
        for (size_t w = 0; f.found == 1 && w < ntids; w++)
            map[w] = gidx[same[best[w]]];
    }
    free(gidx), free(gsize), free(need), free(cur), free(best), free(same);
    return rc;
}

int pb_kt_gloo(pb_kt_t *kt, pb_err_t *err)
{
    size_t ngloo = 0, ntids = 0, lone = 0;
    for (size_t i = 0; i < kt->ngroups; i++)
        ngloo += kt->groups[i].gloo != 0;
    for (size_t i = 0; i < kt->c10d.n; i++)
        lone += !has_rpc(kt, &kt->c10d.v[i]);
    if (lone == 0 || kt->gloo.n == 0) {
        kt->jp->dropped += lone; /* issued, but no event says where or when they ran */
        return PB_OK;
    }
    int64_t *tids = worker_tids(kt, &ntids);
    size_t *map = malloc((ntids + 1) * sizeof *map);
    pb_kev_t **wk = calloc(kt->c10d.n + 1, sizeof *wk);
    if (tids == NULL || map == NULL || wk == NULL) {
        free(tids), free(map), free(wk);
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", kt->name);
    }
    for (size_t i = 0; i < kt->c10d.n; i++)
        wk[i] = has_rpc(kt, &kt->c10d.v[i]) ? NULL : worker_event(kt, &kt->c10d.v[i]);
    /* one gloo group takes every thread's work; several are told apart
     * by their worker threads (above) */
    int ways = 1, rc = PB_OK;
    if (ngloo > 1 && ntids == GLOO_THREADS * ngloo) {
        /* all there: in order, two each (gloo_op checks their sizes) */
        size_t w = 0;
        for (size_t g = 0; g < kt->ngroups; g++)
            for (int k = 0; kt->groups[g].gloo && k < GLOO_THREADS; k++)
                map[w++] = g;
    } else if (ngloo > 1 && ntids < GLOO_THREADS * ngloo) {
        /* the placements tried grow as 3 to the groups: a dozen is
         * thousands; past that, refused as undecided */
        ways = ngloo > GLOO_MAX_FIT ? 2 : 1;
        if (ngloo <= GLOO_MAX_FIT && place_threads(kt, tids, ntids, wk, map, &ways) != PB_OK)
            rc = pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", kt->name);
    }
    int told = ngloo == 1 ? ntids <= GLOO_THREADS : ntids <= GLOO_THREADS * ngloo && ways == 1;
    if (rc == PB_OK && !told && kt->nops > 0) {
        /* an NCCL job's side gloo group (Megatron's checkpointing groups):
         * its few operations are counted lost rather than the trace refused */
        kt->jp->dropped += lone;
        lone = 0;
    } else if (rc == PB_OK && !told) {
        rc = pb_err_set(err, PB_EINPUT, "%s: %zu gloo worker threads ran work for %zu gloo "
                        "process groups (%d each), %s: which group ran each operation cannot "
                        "be told; profile a window in which every gloo group communicates",
                        kt->name, ntids, ngloo, GLOO_THREADS,
                        ntids > GLOO_THREADS * ngloo ? "more than they have"
                        : ways == 0                  ? "and no placement fits their sizes"
                        : ngloo > GLOO_MAX_FIT       ? "too many groups to try placements"
                                                     : "and their sizes fit several placements");
    }
    for (size_t i = 0; rc == PB_OK && lone && i < kt->c10d.n; i++) {
        const pb_kev_t *c = &kt->c10d.v[i], *w = wk[i];
        if (has_rpc(kt, c))
            continue;
        if (w == NULL) {
            kt->jp->dropped++;
            continue;
        }
        pb_kgroup_t *g = thread_group(kt, tids, map, ntids, w->tid, ngloo);
        if (g == NULL && caller_tid(kt, w->tid)) {
            /* a send or receive with several gloo groups: whose, the
             * trace does not say (c10d records the group as "") */
            kt->jp->dropped++;
            continue;
        }
        rc = g ? gloo_op(kt, c, w, g, err)
               : pb_err_set(err, PB_EINPUT, "%s: no gloo group for worker thread %lld", kt->name,
                            (long long)w->tid);
    }
    free(tids), free(map), free(wk);
    return rc;
}

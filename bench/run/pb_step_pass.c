/* The executed reference step, running: one step of this rank's
 * schedule (pb_step_run.h; what each part stands for is pb_step_run.c's
 * top comment).  A pass walks its chunk's layers: the compute stand-in,
 * then the layer's share of the TP/SP, EP and CP operations (ring
 * attention overlapping its blocks), gradient buckets launched as the
 * last backward pass fills them; exchanges are Megatron's batched
 * send/receive parts.  Each category's time is added to s->spent, and
 * with --trace every pass, exchange and DP wait is a span. */
#include "pb_step_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void span(pb_step_exec_t *s, int act, int mb, int chunk, unsigned parts, double t0,
                 double t1, double origin)
{
    if (!s->tracing)
        return;
    if (s->nspans == s->capspans) {
        size_t nc = s->capspans ? 2 * s->capspans : 256;
        pb_step_span_t *ns = realloc(s->spans, nc * sizeof *ns);
        if (ns == NULL) { /* the trace stops growing; the step runs on */
            s->tracing = 0;
            return;
        }
        s->spans = ns;
        s->capspans = nc;
    }
    s->spans[s->nspans++] = (pb_step_span_t){act, mb, chunk, parts, t0 - origin, t1 - origin};
}

/* The compute stand-in, on the TP group's stream where Megatron's GEMMs
 * and TP collectives share one stream. */
static int compute(pb_step_exec_t *s, double sec, int cat, pb_err_t *err)
{
    pb_group_t *g = s->groups[PB_GK_TP];
    double t0 = now_s();
    if (g->be->mem->busy(g, sec, err) || g->be->comm->sync(g, err))
        return err->code;
    s->spent[cat] += now_s() - t0;
    return PB_OK;
}

static int run_op(pb_step_exec_t *s, pb_step_op_t *so, pb_err_t *err)
{
    memcpy(so->g->doing, so->doing, sizeof so->doing);
    double t0 = now_s();
    if (pb_op_run(so->g, &so->op, &s->bufs, err) || so->g->be->comm->sync(so->g, err))
        return err->code;
    s->spent[so->cat] += now_s() - t0;
    return PB_OK;
}

/* Launches an overlapped operation: returns once issued when the backend
 * overlaps, else it completes here and is exposed whole. */
static int launch(pb_step_exec_t *s, pb_step_op_t *so, pb_err_t *err)
{
    memcpy(so->g->doing, so->doing, sizeof so->doing);
    double t0 = now_s();
    if (pb_op_run(so->g, &so->op, &s->dpbufs, err))
        return err->code;
    if (!s->async && so->g->be->comm->sync(so->g, err))
        return err->code;
    s->spent[PB_SC_DP] += now_s() - t0;
    return PB_OK;
}

/* Waits for every overlapped operation of `phase` still running: the
 * exposed part of the DP traffic.  A group synced twice (two kinds of
 * bucket on one group) has nothing left the second time. */
static int wait_overlapped(pb_step_exec_t *s, int phase, double origin, pb_err_t *err)
{
    double t0 = now_s();
    int any = 0;
    for (size_t i = 0; i < s->nops; i++) {
        pb_step_op_t *so = &s->ops[i];
        if (!so->overlapped || so->phase != phase)
            continue;
        any = 1;
        if (so->g->be->comm->sync(so->g, err))
            return err->code;
    }
    if (!any)
        return PB_OK;
    double t1 = now_s();
    s->spent[PB_SC_DP] += t1 - t0;
    span(s, PB_STEP_SPAN_DP, -1, -1, 0, t0, t1, origin);
    return PB_OK;
}

/* share of n operations that falls to item i of `of` evenly spread ones */
static uint64_t share(uint64_t n, uint64_t i, uint64_t of)
{
    return n * (i + 1) / of - n * i / of;
}

/* Layer j (of the stage's v x layers, counted from the stage's first) of
 * a pass: its share of every layer-wise operation of the phase. */
static int layer_ops(pb_step_exec_t *s, int phase, uint64_t j, pb_err_t *err)
{
    uint64_t all = (uint64_t)s->v * (uint64_t)s->layers;
    for (size_t i = 0; i < s->nops; i++) {
        pb_step_op_t *so = &s->ops[i];
        if (so->phase != phase || !so->per_pass || so->ring)
            continue;
        for (uint64_t k = share(so->per_mb, j, all); k > 0; k--)
            if (run_op(s, so, err))
                return err->code;
    }
    return PB_OK;
}

/* The gradient buckets, in the op list's order, form one queue of B
 * buckets filled as the last backward passes finish layers (of v x
 * layers in all): after the `done`-th layer, the buckets due by then go
 * out, as DDP launches a bucket the moment its last gradient lands.
 * `*next` counts the buckets launched so far in this step. */
static int buckets(pb_step_exec_t *s, uint64_t done, uint64_t *next, pb_err_t *err)
{
    uint64_t all = (uint64_t)s->v * (uint64_t)s->layers;
    uint64_t due = s->nbuckets * (done + 1) / all; /* buckets full after this layer */
    for (; *next < due; ++*next) {
        uint64_t k = *next; /* the k-th bucket of the queue: find its op */
        for (size_t i = 0; i < s->nops; i++) {
            pb_step_op_t *so = &s->ops[i];
            if (!so->overlapped || so->phase != PB_PH_BWD)
                continue;
            if (k < so->per_mb) {
                if (launch(s, so, err))
                    return err->code;
                break;
            }
            k -= so->per_mb;
        }
    }
    return PB_OK;
}

/* Issues ring step `so` without waiting: to the next rank of the CP ring
 * from the previous one, as batched parts (a host MPI's send/receive
 * pair would block). */
static int ring_send(pb_step_exec_t *s, pb_step_op_t *so, pb_err_t *err)
{
    pb_p2p_part_t p[2];
    int n = 0, to, from;
    uint64_t count = so->op.geom.count;
    pb_op_partners(&so->op, so->g, &to, &from);
    if (to >= 0)
        p[n++] = (pb_p2p_part_t){1, to, 0, s->bufs.send, count};
    if (from >= 0)
        p[n++] = (pb_p2p_part_t){0, from, 0, s->bufs.recv, count};
    memcpy(so->g->doing, so->doing, sizeof so->doing);
    return so->g->be->comm->p2p_batch(so->g, p, n, so->op.dtype, err);
}

/* The attention of layer j (`attn` seconds of its compute) with the
 * layer's ring steps: the sequence is in cp blocks, and while block k is
 * attended to, the K,V of block k+1 arrive; a step waits for the one
 * before it, as each rank forwards what it just received.  The waits
 * are the exposed CP time.  *used: the compute spent (0: no ring steps
 * in this layer, the caller stands in for the whole layer). */
static int ring_attention(pb_step_exec_t *s, int phase, uint64_t j, double attn, double *used,
                          pb_err_t *err)
{
    uint64_t all = (uint64_t)s->v * (uint64_t)s->layers, n = 0;
    pb_group_t *g = NULL;
    for (size_t i = 0; i < s->nops; i++)
        if (s->ops[i].ring && s->ops[i].phase == phase) {
            n += share(s->ops[i].per_mb, j, all);
            g = s->ops[i].g;
        }
    *used = 0.0;
    if (n == 0)
        return PB_OK;
    uint64_t steps = g->size > 1 ? (uint64_t)g->size - 1 : 1, q = 0;
    double block = attn / (double)(steps + 1);
    for (uint64_t k = 0; k < steps; k++) {
        double t0 = now_s();
        /* this step's transfers: the layer's ring operations in order,
         * spread evenly over the steps (backward sends dK,dV with K,V) */
        uint64_t upto = n * (k + 1) / steps;
        for (size_t i = 0; i < s->nops && q < upto; i++) {
            pb_step_op_t *so = &s->ops[i];
            if (!so->ring || so->phase != phase)
                continue;
            for (uint64_t c = share(so->per_mb, j, all); c > 0 && q < upto; c--, q++)
                if (ring_send(s, so, err))
                    return err->code;
        }
        s->spent[PB_SC_CP] += now_s() - t0;
        if (compute(s, block, PB_SC_COMPUTE, err))
            return err->code;
        t0 = now_s();
        if (g->be->comm->sync(g, err))
            return err->code;
        s->spent[PB_SC_CP] += now_s() - t0;
    }
    *used = attn;
    return compute(s, block, PB_SC_COMPUTE, err); /* the last block: nothing left to come */
}

static int pass(pb_step_exec_t *s, const pb_step_action_t *a, int last, uint64_t grads[2],
                pb_err_t *err)
{
    int fwd = a->act == PB_ACT_FWD;
    for (int i = 0; i < s->layers; i++) {
        int layer = fwd ? i : s->layers - 1 - i; /* backward runs from the top down */
        uint64_t j = (uint64_t)a->chunk * (uint64_t)s->layers + (uint64_t)layer;
        double t = fwd ? s->t_fwd : s->t_bwd, used = 0.0;
        if (ring_attention(s, fwd ? PB_PH_FWD : PB_PH_BWD, j, t * s->pred.attn_share, &used, err))
            return err->code;
        if (compute(s, t - used, PB_SC_COMPUTE, err))
            return err->code;
        if (layer_ops(s, fwd ? PB_PH_FWD : PB_PH_BWD, j, err))
            return err->code;
        if (last && buckets(s, grads[0]++, &grads[1], err))
            return err->code;
    }
    return PB_OK;
}

/* One of Megatron's batched exchanges.  Parts are issued in one order on
 * every rank (send next, receive previous, send previous, receive next),
 * with the activation direction on tag 0 and the gradient's on tag 1, so
 * that they pair even in a ring of two where next and previous are one
 * rank. */
static int exchange(pb_step_exec_t *s, const pb_step_action_t *a, pb_err_t *err)
{
    pb_group_t *g = s->groups[PB_GK_PP];
    int next = (g->rank + 1) % g->size, prev = (g->rank + g->size - 1) % g->size;
    uint64_t esz = pb_dtype_size(s->pp_dtype);
    uint64_t slot = s->ppbufs.bytes / 2;
    pb_p2p_part_t p[PB_X_COUNT];
    int n = 0;
    for (int x = 0; x < PB_X_COUNT; x++) {
        if (!(a->parts & PB_X_BIT(x)))
            continue;
        int send = x == PB_X_SEND_NEXT || x == PB_X_SEND_PREV;
        int grad = x == PB_X_SEND_PREV || x == PB_X_RECV_NEXT;
        char *base = send ? (char *)s->ppbufs.send : (char *)s->ppbufs.recv;
        p[n++] = (pb_p2p_part_t){send, x == PB_X_SEND_NEXT || x == PB_X_RECV_NEXT ? next : prev, grad,
                            base + (grad ? slot : 0), s->pp_bytes[grad] / esz};
    }
    snprintf(g->doing, sizeof g->doing, "step: pipeline exchange (%u parts) with stages %d/%d", n,
             prev, next);
    double t0 = now_s();
    if (g->be->comm->p2p_batch(g, p, n, s->pp_dtype, err) || g->be->comm->sync(g, err))
        return err->code;
    s->spent[PB_SC_PP] += now_s() - t0;
    return PB_OK;
}

int pb_step_one(pb_step_exec_t *s, double *sec, pb_err_t *err)
{
    memset(s->spent, 0, sizeof s->spent);
    s->nspans = 0;
    pb_group_t *w = s->ctx->world_group;
    if (w->be->comm->barrier(w, err))
        return err->code;
    double origin = now_s();
    s->origin = origin;
    /* the previous step's updated parameters, gathered beside the first
     * forward pass */
    for (size_t i = 0; i < s->nops; i++)
        if (s->ops[i].overlapped && s->ops[i].phase == PB_PH_OPT)
            for (uint64_t k = 0; k < s->ops[i].per_mb; k++)
                if (launch(s, &s->ops[i], err))
                    return err->code;
    int gathered = 0;
    uint64_t grads[2] = {0, 0}; /* layers whose gradients are final; buckets launched */
    for (size_t i = 0; i < s->sched.n; i++) {
        const pb_step_action_t *a = &s->sched.a[i];
        double t0 = now_s();
        int code = a->act == PB_ACT_XCHG
                       ? exchange(s, a, err)
                       : pass(s, a, a->act == PB_ACT_BWD && s->last_bwd[a->chunk] == i,
                              grads, err);
        if (code)
            return code;
        span(s, (int)a->act, a->mb, a->chunk, a->parts, t0, now_s(), origin);
        if (a->act == PB_ACT_FWD && !gathered) {
            gathered = 1;
            if (wait_overlapped(s, PB_PH_OPT, origin, err))
                return err->code;
        }
    }
    if (wait_overlapped(s, PB_PH_BWD, origin, err)) /* the DP tail */
        return err->code;
    if (s->opt_s > 0.0 && compute(s, s->opt_s, PB_SC_OPT, err))
        return err->code;
    *sec = now_s() - origin;
    return PB_OK;
}

/* The executed reference step: one rank's part.
 *
 * The rank runs its pipeline stage's schedule (pb_step_sched.c).  Each
 * forward and backward pass walks the layers of one model chunk: the
 * backend's compute stand-in (`busy`: a spin on hosts, a GEMM-shaped
 * kernel on GPUs) for the layer's modelled duration, then the layer's
 * share of the TP/SP, EP and CP operations of the patterns' op list on
 * this rank's real groups, blocking as they are on the critical path in
 * Megatron.  Pipeline exchanges are Megatron's batched send/receive
 * parts, posted together and completed together.  Gradient buckets are
 * launched during the last backward pass of each chunk as the layers
 * that fill them finish (DDP / Megatron overlap_grad_reduce), without
 * waiting; the distributed optimizer's parameter all-gathers are
 * launched at the step's start and awaited after the first forward pass
 * (overlap_param_gather).  What they leave exposed - the waits - is the
 * DP time.  The optimizer's update is stood in for like compute. */
#include "pb_step_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../glue/pb_predict.h"

/* An A100's dense bf16 peak (312 TFLOP/s) at the model's default
 * achievable fraction of 0.5. */
#define PB_STEP_DEFAULT_TFLOPS 156.0

static const char *const cat_names[PB_SC_COUNT] = {"compute", "tp", "ep", "cp", "pp", "dp",
                                                   "optimizer"};

const char *pb_step_cat_name(int c) { return cat_names[c]; }

double pb_step_tflops(const pb_options_t *o)
{
    return o->predict.tflops > 0.0 ? o->predict.tflops : PB_STEP_DEFAULT_TFLOPS;
}

static int cat_of(pb_gkind_t g)
{
    switch (g) {
    case PB_GK_TP:
        return PB_SC_TP;
    case PB_GK_EP:
        return PB_SC_EP;
    case PB_GK_CP:
        return PB_SC_CP;
    case PB_GK_PP:
        return PB_SC_PP;
    default:
        return PB_SC_DP;
    }
}

/* ---- building ---- */

static int split_groups(pb_step_exec_t *s, pb_err_t *err)
{
    pb_ctx_t *ctx = s->ctx;
    for (int k = 0; k < PB_GK_COUNT; k++) { /* every rank splits every kind, in order */
        int gid, idx;
        pb_layout_group(&s->plan.layout, (pb_gkind_t)k, ctx->rank, &gid, &idx, NULL);
        if (ctx->be.comm->split(ctx->world_group, gid, idx, &s->groups[k], err))
            return err->code;
    }
    return PB_OK;
}

/* The op list, minus the pipeline exchanges (the schedule places those),
 * as operations on this rank's groups.  *most: the largest buffer the
 * blocking and the overlapped operations need. */
static int map_ops(pb_step_exec_t *s, uint64_t most[2], pb_err_t *err)
{
    const pb_op_list_t *ops = &s->plan.ops;
    s->ops = calloc(ops->n ? ops->n : 1, sizeof *s->ops);
    if (s->ops == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    int have[2] = {0, 0};
    for (size_t i = 0; i < ops->n; i++) {
        const pb_pat_op_t *r = &ops->ops[i];
        /* an end's traffic (the embedding's, the output layer's and the
         * loss's) runs on that end's stage only; a TP group lies within
         * one stage, so its members skip it together */
        if ((r->stage == PB_STAGE_FIRST && s->stage != 0) ||
            (r->stage == PB_STAGE_LAST && s->stage != s->stages - 1))
            continue;
        pb_group_t *g = s->groups[r->group];
        pb_op_t op;
        pb_pattern_backend_op(r, g, &op);
        if (r->group == PB_GK_PP) {
            int bwd = r->phase != PB_PH_FWD;
            s->pp_bytes[bwd] = op.bytes;
            s->pp_dtype = op.dtype;
            have[bwd] = 1;
            continue;
        }
        pb_step_op_t *so = &s->ops[s->nops++];
        so->op = op;
        so->g = g;
        so->cat = cat_of(r->group);
        so->phase = (int)r->phase;
        so->per_pass = r->per_pass;
        /* once-a-step DP traffic runs beside compute: the buckets during
         * backward, the parameter gathers during the first forward */
        so->overlapped = !r->per_pass && so->cat == PB_SC_DP;
        /* layer-wise operations repeat in every micro-batch's pass */
        so->per_mb = r->per_pass ? (r->count + (uint64_t)s->m - 1) / (uint64_t)s->m : r->count;
        if (so->per_mb == 0)
            so->per_mb = 1;
        uint64_t need = pb_op_buffer_bytes(&so->op, g->size);
        if (need > most[so->overlapped])
            most[so->overlapped] = need;
    }
    if (s->stages > 1 && !(have[0] && have[1]))
        return pb_err_set(err, PB_ERUNTIME, "the pipeline exchanges are missing from the op list");
    return PB_OK;
}

/* The buffers: layer operations', overlapped operations' (a bucket in
 * flight must not share memory with the layer collectives running beside
 * it), and the exchanges' four slots. */
static int alloc_bufs(pb_step_exec_t *s, const uint64_t most[2], pb_err_t *err)
{
    pb_group_t *g = s->groups[PB_GK_TP];
    uint64_t pp = s->pp_bytes[0] > s->pp_bytes[1] ? s->pp_bytes[0] : s->pp_bytes[1];
    if (pp < 8)
        pp = 8;
    int code = pb_bufs_alloc(g, most[0], &s->bufs, err);
    if (code == PB_OK)
        code = pb_bufs_alloc(g, most[1], &s->dpbufs, err);
    if (code == PB_OK)
        code = pb_bufs_alloc(g, 2 * pp, &s->ppbufs, err);
    if (pb_ctx_agree(s->ctx, code, err))
        return err->code;
    for (size_t i = 0; i < s->nops; i++) {
        pb_step_op_t *so = &s->ops[i];
        pb_bufs_t *b = so->overlapped ? &s->dpbufs : &s->bufs;
        if (pb_op_setup(&so->op, so->g, b, err) || pb_op_fill(so->g, &so->op, b, err))
            return err->code;
    }
    return PB_OK;
}

/* Where each chunk's gradients are final: its last backward pass. */
static int find_last_bwd(pb_step_exec_t *s, pb_err_t *err)
{
    s->last_bwd = malloc((size_t)s->v * sizeof *s->last_bwd);
    if (s->last_bwd == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    for (int c = 0; c < s->v; c++)
        s->last_bwd[c] = (size_t)-1;
    for (size_t i = 0; i < s->sched.n; i++)
        if (s->sched.a[i].act == PB_ACT_BWD)
            s->last_bwd[s->sched.a[i].chunk] = i;
    return PB_OK;
}

/* The schedule: --schedule, else interleaved exactly when --vp asks for
 * model chunks (as Megatron picks its schedule from the virtual pipeline
 * size). */
static int pick_schedule(pb_step_exec_t *s, pb_err_t *err)
{
    int asked = s->ctx->opt->step.schedule;
    int vp = s->plan.layout.vp;
    if (asked < 0)
        s->kind = vp > 1 ? PB_SCHED_INTERLEAVED : PB_SCHED_1F1B;
    else
        s->kind = (pb_sched_kind_t)asked;
    if (s->kind == PB_SCHED_INTERLEAVED && vp < 2)
        return pb_err_set(err, PB_EINPUT, "--schedule interleaved needs --vp 2 or more "
                          "(model chunks per pipeline stage)");
    if (s->kind != PB_SCHED_INTERLEAVED && vp > 1)
        return pb_err_set(err, PB_EINPUT, "--vp %d splits each stage into chunks, which only "
                          "--schedule interleaved runs, not %s", vp, pb_sched_name(s->kind));
    return PB_OK;
}

/* The model's prediction of this very step, at the stand-in's compute rate
 * (so its compute is the spins' exactly) and with the collective model
 * (--calib, else the --hw preset) applied to the same op list. */
static int predict(pb_step_exec_t *s, pb_err_t *err)
{
    const pb_options_t *o = s->ctx->opt;
    if (pb_model_predict(&s->plan.model, &s->plan.layout, &o->predict, &o->model.train,
                         pb_step_tflops(o) / o->step.compute_scale, &s->pred, &s->calibrated,
                         err))
        return err->code;
    /* Adam's update is memory-bound, not FLOP-bound: it is shrunk by the
     * compute scale like everything the stand-in replaces */
    s->opt_s = o->step.no_comm ? 0.0 : s->pred.part[PB_PART_OPT] * o->step.compute_scale;
    return PB_OK;
}

int pb_step_build(pb_step_exec_t *s, pb_ctx_t *ctx, pb_err_t *err)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    const pb_options_t *o = ctx->opt;
    const pb_comm_ops_t *bo = ctx->be.comm;
    if (pb_backend_require(&ctx->be, PB_CAP_BUSY, err))
        return err->code;
    if (pb_pattern_plan(&o->model, 0, ctx->size, o->run.np, &s->plan, err))
        return err->code;
    const pb_model_t *m = &s->plan.model;
    const pb_layout_t *l = &s->plan.layout;
    s->m = (int)pb_traffic_micro(m, l);
    s->v = l->vp > 1 ? l->vp : 1;
    s->layers = (int)(pb_traffic_stage_layers(m, l) / (uint64_t)s->v);
    s->stages = l->size[PB_DIM_PP];
    s->stage = pb_layout_coord(l, ctx->rank, PB_DIM_PP);
    if (pick_schedule(s, err) || predict(s, err))
        return err->code;
    /* The stand-in runs the model's compute of the busiest stage (a
     * middle one, or the last with the logits) on every stage, as the
     * pipeline moves at its slowest stage's pace: per layer and micro-
     * batch, the forward a third (a quarter with full recomputation) and
     * the backward the rest. */
    double per_layer = s->pred.part[PB_PART_COMPUTE] / ((double)s->m * (double)s->v *
                                                        (double)s->layers);
    s->t_fwd = per_layer / (3.0 + (s->plan.cfg.recompute ? 1.0 : 0.0));
    s->t_bwd = per_layer - s->t_fwd;
    if (pb_sched_build(s->kind, s->stages, s->stage, s->m, s->v, &s->sched,
                       err))
        return err->code;
    uint64_t most[2] = {8, 8};
    if (split_groups(s, err) || map_ops(s, most, err) || find_last_bwd(s, err))
        return err->code;
    if (o->step.no_comm) { /* the bubble test: only the schedule's order remains */
        s->nops = 0;
        s->pp_bytes[0] = s->pp_bytes[1] = 4;
        s->pp_dtype = PB_F32;
    }
    if (alloc_bufs(s, most, err))
        return err->code;
    /* overlapped operations run on their own groups, without waiting */
    s->async = pb_backend_has(&ctx->be, PB_CAP_ASYNC);
    for (size_t i = 0; s->async && i < s->nops; i++) {
        pb_step_op_t *so = &s->ops[i];
        /* ring attention: each K,V (dK,dV) step travels while the block
         * in hand is attended to (Liu et al. 2023; Transformer Engine's
         * P2P context parallelism) */
        so->ring = so->cat == PB_SC_CP && so->per_pass && so->op.coll == PB_SENDRECV;
        if ((so->overlapped || so->ring) && bo->set_async(so->g, 1, err))
            return err->code;
    }
    /* what each operation tells the watchdog, written once here rather
     * than inside the timed step */
    for (size_t i = 0; i < s->nops; i++) {
        pb_step_op_t *so = &s->ops[i];
        snprintf(so->doing, sizeof so->doing, "step: %s%s %llu B, %s",
                 so->ring ? "ring attention " : so->overlapped ? "overlapped " : "",
                 pb_coll_name(so->op.coll), (unsigned long long)so->op.bytes, cat_names[so->cat]);
        if (so->overlapped && so->phase == PB_PH_BWD)
            s->nbuckets += so->per_mb;
    }
    s->tracing = o->step.trace_path != NULL;
    return PB_OK;
}

/* ---- checking ---- */

int pb_step_verify(pb_step_exec_t *s, int64_t *wrong, pb_err_t *err)
{
    pb_ctx_t *ctx = s->ctx;
    uint64_t w = 0;
    int corrupt = ctx->opt->run.fault == PB_FAULT_CORRUPT && ctx->opt->run.fault_rank == ctx->rank;
    for (size_t i = 0; i < s->nops; i++) {
        pb_step_op_t *so = &s->ops[i];
        uint64_t one = 0;
        if (pb_op_verify(so->g, &so->op, so->overlapped ? &s->dpbufs : &s->bufs,
                         corrupt && i == 0, &one, err))
            return err->code;
        w += one;
    }
    if (s->stages > 1) { /* both directions along the pipeline (a ring when interleaved) */
        pb_group_t *g = s->groups[PB_GK_PP];
        int ring = s->v > 1;
        for (int dir = 0; dir < 2; dir++) {
            int up = g->rank + 1 < g->size ? g->rank + 1 : ring ? 0 : -1;
            int down = g->rank > 0 ? g->rank - 1 : ring ? g->size - 1 : -1;
            pb_op_t op = {.coll = PB_SENDRECV, .dtype = s->pp_dtype, .bytes = s->pp_bytes[dir],
                          .p2p = 1, .to = dir ? down : up, .from = dir ? up : down};
            uint64_t one = 0;
            if (pb_op_setup(&op, g, &s->ppbufs, err) ||
                pb_op_verify(g, &op, &s->ppbufs, 0, &one, err))
                return err->code;
            w += one;
        }
    }
    *wrong = (int64_t)w;
    if (pb_ctl_allreduce(ctx->world, wrong, 1, PB_CTL_I64, PB_CTL_SUM) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the sum of the wrong counts failed");
    return PB_OK;
}

void pb_step_release(pb_step_exec_t *s)
{
    pb_ctx_t *ctx = s->ctx;
    if (ctx == NULL)
        return;
    pb_group_t *g = s->groups[PB_GK_TP];
    pb_bufs_t *b[3] = {&s->bufs, &s->dpbufs, &s->ppbufs};
    for (int i = 0; i < 3; i++)
        if (b[i]->send)
            pb_bufs_free(g, b[i]);
    for (int k = 0; k < PB_GK_COUNT; k++)
        if (s->groups[k])
            ctx->be.comm->group_free(s->groups[k]);
    pb_sched_free(&s->sched);
    free(s->ops);
    free(s->last_bwd);
    free(s->spans);
    pb_pattern_plan_free(&s->plan);
    memset(s, 0, sizeof *s);
}

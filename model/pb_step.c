#include "pb_step.h"

#include "../patterns/pb_stages.h"

#include "pb_kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* GPUs per node without --gpus-per-node: an HGX/DGX node's 8 */
#define PB_STEP_GPUS_PER_NODE 8
/* Adam's bytes per parameter (doc/MODEL.md, "Optimizer"): read the fp32
 * weight, moments and gradient (16), write weight, moments and the bf16
 * copy (14), and the gradient norm's read (4) */
#define PB_ADAM_B_PER_PARAM 34.0

void pb_step_cfg_default(pb_step_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    c->recomp = PB_RECOMP_NONE;
    pb_traffic_cfg_default(&c->traffic);
    c->gpus_per_node = PB_STEP_GPUS_PER_NODE;
    c->overlap_grad = c->overlap_tp_bwd = c->overlap_p2p = 1;
    c->grad_accum_fused = 1;
    c->framework = PB_FW_MEGATRON;
    pb_moe_cfg_default(&c->moe);
}

const char *pb_part_name(int part)
{
    static const char *const n[] = {"compute", "TP",  "PP", "bubble",
                                    "DP",      "EP",  "CP", "optimizer"};
    return part >= 0 && part < PB_PART_COUNT ? n[part] : "?";
}

/* the MoE dispatcher the step runs: the configured one, or by where the
 * EP group lies (pb_ep_cost.h) */
static pb_ep_disp_t ep_dispatcher(const pb_layout_t *l, const pb_step_cfg_t *c)
{
    return pb_ep_disp_resolve(c->ep_disp, pb_step_group_net(l, PB_GK_EP, c->gpus_per_node));
}

/* one micro-batch on a stage: forward, backward with recomputation,
 * the attention core's and the weight-gradient GEMMs' share of it */
typedef struct stage {
    double mb, fwd, bwd, attn, wgrad, attn_share;
    double once; /* per step: fp8 weight casts cached for the step */
    int first, last; /* it holds the embedding, the output layer */
} stage_t;

static void stage_add(stage_t *s, const pb_layer_time_t *t, double times)
{
    s->once += times * t->once;
    s->fwd += times * t->fwd;
    s->bwd += times * (t->bwd + t->recomp);
    s->attn += times * t->attn;
    s->wgrad += times * t->wgrad;
}

/* The kernel-by-kernel model (pb_kernels.h), or with a flat rate (--tflops,
 * --gemm-csv) the FLOPs at that rate. */
static void stage_time(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                       const pb_hw_t *hw, double rate, double layers, int first, int last,
                       stage_t *out)
{
    memset(out, 0, sizeof *out);
    out->first = first, out->last = last;
    double moe_frac = m->layers ? (double)pb_model_moe_layers(m) / (double)m->layers : 0.0;
    uint64_t b = m->mbs, s = m->seq;
    if (c->compute_tflops > 0) {
        double r = rate * 1e12 * (double)l->size[PB_DIM_TP] * (double)l->size[PB_DIM_CP];
        double fwd = layers * ((1.0 - moe_frac) * pb_flops_layer_fwd(m, b, s, 0, c->causal) +
                               moe_frac * pb_flops_layer_fwd(m, b, s, 1, c->causal));
        double rec = layers * ((1.0 - moe_frac) * pb_flops_recompute(m, b, s, 0, c->causal,
                                                                     c->recomp) +
                               moe_frac * pb_flops_recompute(m, b, s, 1, c->causal, c->recomp));
        if (last)
            fwd += pb_flops_logits_fwd(m, b, s);
        double attn = layers * pb_flops_attn_core_fwd(m, b, s, c->causal);
        out->fwd = fwd / r, out->bwd = (2.0 * fwd + rec) / r;
        out->attn = PB_FLOPS_TRAIN_X_FWD * attn / r, out->wgrad = fwd / r;
        out->attn_share = fwd > 0 ? attn / fwd : 0.0;
        out->mb = out->fwd + out->bwd;
        return;
    }
    pb_kern_cfg_t kc = {.tp = l->size[PB_DIM_TP],
                        .cp = l->size[PB_DIM_CP],
                        .sp = l->sp,
                        .ep = l->size[PB_DIM_EP],
                        .etp = pb_layout_etp(l),
                        .flash = c->flash,
                        .causal = c->causal,
                        .recomp = c->recomp,
                        .disp = ep_dispatcher(l, c),
                        .moe_imb = pb_moe_imbalance(&c->moe, c->traffic.imbalance),
                        .fw = c->framework,
                        .fp8 = c->fp8,
                        .fp8_recipe = c->fp8_recipe,
                        .layers = m->layers};
    pb_layer_time_t t;
    pb_kern_layer(m, hw, &kc, 0, &t);
    stage_add(out, &t, layers * (1.0 - moe_frac));
    if (moe_frac > 0) {
        pb_kern_layer(m, hw, &kc, 1, &t);
        stage_add(out, &t, layers * moe_frac);
    }
    double attn_fwd = layers * pb_flops_attn_core_fwd(m, b, s, c->causal);
    double all_fwd = layers * ((1.0 - moe_frac) * pb_flops_layer_fwd(m, b, s, 0, c->causal) +
                               moe_frac * pb_flops_layer_fwd(m, b, s, 1, c->causal));
    if (last) {
        pb_kern_logits(m, hw, &kc, &t);
        stage_add(out, &t, 1.0);
        all_fwd += pb_flops_logits_fwd(m, b, s);
    }
    if (first) {
        pb_kern_embed(m, hw, &kc, &t);
        stage_add(out, &t, 1.0);
    }
    out->attn_share = all_fwd > 0 ? attn_fwd / all_fwd : 0.0;
    /* the stack's own work per micro-batch (pb_step_stack.c) */
    out->fwd += pb_step_stack_fwd_s(m, l, c, hw, first, last);
    out->bwd += pb_step_stack_bwd_s(c);
    out->mb = out->fwd + out->bwd;
}

/* The busiest stage: the first (embedding), a middle one or the last
 * (logits and loss), each with its own layer count (patterns/pb_stages.h:
 * pp_first/pp_last, or pp_trim). */
static void busiest_stage(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                          const pb_hw_t *hw, double rate, stage_t *st)
{
    int pp = l->size[PB_DIM_PP];
    pb_stages_t sp;
    pb_stages_of(m, pp, &sp);
    if (pp == 1) {
        stage_time(m, l, c, hw, rate, (double)sp.first, 1, 1, st);
        return;
    }
    /* on a tie a middle stage, then the first, is the one named */
    stage_t a, d;
    stage_time(m, l, c, hw, rate, (double)sp.first, 1, 0, &a);
    stage_time(m, l, c, hw, rate, (double)sp.last, 0, 1, &d);
    if (pp > 2)
        stage_time(m, l, c, hw, rate, (double)sp.mid, 0, 0, st);
    else
        *st = a;
    *st = a.mb > st->mb ? a : *st;
    *st = d.mb > st->mb ? d : *st;
}

/* Communication of one step before overlap, by the windows that can hide
 * it: TP forward and backward, DP gradient buckets (and the last one
 * launched), the optimizer's parameter gathers, ZeRO-3's gathers. */
typedef struct comm_sums {
    double tp_fwd, tp_bwd;
    double dp_bwd, dp_bwd_last, dp_opt, dp_opt_max;
    /* ZeRO-3: the forward's gathers, the backward's gathers and
     * scatters, and one layer's gather and scatter (the pieces no
     * compute of the same pass hides) */
    double z3_fwd, z3_bwd, z3_ag_one, z3_rs_one;
    double z3_ar_one; /* HSDP: one layer's all-reduce across the replicas */
} comm_sums_t;

static void add_dp(const pb_step_cfg_t *c, const pb_pat_op_t *o, double t, double tot,
                   comm_sums_t *s)
{
    if (c->traffic.zero == PB_ZERO3 &&
        (o->group == PB_GK_DP || o->group == PB_GK_SHARD || o->group == PB_GK_REPL)) {
        *(o->phase == PB_PH_FWD ? &s->z3_fwd : &s->z3_bwd) += tot;
        double *one = o->coll == PB_ALLGATHER     ? &s->z3_ag_one
                      : o->group == PB_GK_REPL    ? &s->z3_ar_one
                                                  : &s->z3_rs_one;
        *one = t > *one ? t : *one;
    } else if (o->phase == PB_PH_OPT) {
        s->dp_opt += tot;
        s->dp_opt_max = t > s->dp_opt_max ? t : s->dp_opt_max;
    } else {
        s->dp_bwd += tot;
        /* buckets fill in reverse parameter order, full ones first
         * (pb_traffic_dp.c lists them so): the one launched last, after
         * the last gradient, is the list's last - the remainder, usually
         * the smallest - with, under a partial distributed optimizer,
         * the replicas' all-reduce that follows its reduce-scatter */
        s->dp_bwd_last = o->group == PB_GK_REPL ? s->dp_bwd_last + t : t;
    }
}

/* Megatron's scatter/gather pipeline send (Narayanan et al. 2021, Sec.
 * 4.1, Megatron-LM's p2p_communication gather_split_1d_tensor; DeepSpeed's
 * pipe engine likewise partitions and re-gathers across the model-parallel
 * group): each TP rank sends 1/tp of the activation, and the receiving
 * stage all-gathers the tp pieces over NVLink before it can use them, on
 * the path of the exchange.  Seconds of one such gather for the
 * (already split) send o. */
static double pp_regather_s(const pb_layout_t *l, const pb_cost_t *cost, const pb_step_t *out,
                            const pb_pat_op_t *o)
{
    int tp = l->size[PB_DIM_TP];
    uint64_t whole = o->bytes * (uint64_t)tp;
    return pb_cost_us(cost, PB_ALLGATHER, o->dtype, tp, out->net[PB_GK_TP], whole, 1.0, NULL) *
           1e-6;
}

/* One op's seconds per step into its strategy's total and its window. */
static void add_op(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                   const pb_cost_t *cost, const pb_pat_op_t *o, pb_step_t *out, comm_sums_t *s)
{
    pb_cost_src_t src;
    /* Megatron's pipeline sends 1/tp per TP rank with or without SP (the
     * scatter/gather optimisation, on by default: Narayanan et al. 2021,
     * Sec. 4.1); the pattern without SP sends the whole tensor, as a
     * naive pipeline would */
    pb_pat_op_t sg;
    if (o->strategy == PB_STRAT_PP && !l->sp && l->size[PB_DIM_TP] > 1) {
        sg = *o;
        sg.bytes /= (uint64_t)l->size[PB_DIM_TP];
        o = &sg;
    }
    /* the group's placement: its members in one node (all of them when
     * it does not span nodes), for the curve's transfer and the rail
     * preset (pb_cost_place_us) */
    int net = out->net[o->group];
    int per_node = net ? pb_step_group_per_node(l, o->group, c->gpus_per_node) : o->group_size;
    double t = pb_cost_place_us(cost, o->coll, o->dtype, o->group_size, net, per_node, o->bytes,
                                o->imbalance, &src) * 1e-6;
    pb_ep_disp_t disp = ep_dispatcher(l, c);
    if (o->strategy == PB_STRAT_EP && out->net[o->group] &&
        (src.cal == PB_CAL_PRESET || disp == PB_EP_DISP_FLEX)) {
        /* EP across nodes: the dispatcher's own path (pb_ep_cost.h);
         * a measured all-to-all does not stand for DeepEP's kernels */
        memset(&src, 0, sizeof src);
        src.cal = PB_CAL_PRESET;
        t = pb_ep_net_us(cost->hw, disp, o->group_size,
                         pb_step_group_per_node(l, o->group, c->gpus_per_node), (int)m->experts,
                         (int)m->topk, o->bytes, o->imbalance) * 1e-6;
    }
    pb_step_count_source(out, &src);
    double tot = t * (double)o->count;
    if (o == &sg) /* the receiver gathers the whole tensor back over TP */
        tot += pp_regather_s(l, cost, out, o) * (double)o->count;
    switch (o->strategy) {
    case PB_STRAT_TP:
    case PB_STRAT_SP:
        out->comm_total[PB_PART_TP] += tot;
        *(o->phase == PB_PH_FWD ? &s->tp_fwd : &s->tp_bwd) += tot;
        break;
    case PB_STRAT_PP:
        out->comm_total[PB_PART_PP] += tot;
        break;
    case PB_STRAT_EP:
        out->comm_total[PB_PART_EP] += tot;
        break;
    case PB_STRAT_CP:
        out->comm_total[PB_PART_CP] += tot;
        break;
    default:
        out->comm_total[PB_PART_DP] += tot;
        add_dp(c, o, t, tot, s);
        break;
    }
}

/* The busiest stage runs the layers' traffic and, when it holds an end
 * of the pipeline, that end's (the embedding's, the output layer's and
 * the loss's: pb_pat_stage_t) */
static int on_stage(const pb_pat_op_t *o, const stage_t *st)
{
    return o->stage == PB_STAGE_EVERY || (o->stage == PB_STAGE_FIRST && st->first) ||
           (o->stage == PB_STAGE_LAST && st->last);
}

static int sum_comm(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                    const pb_cost_t *cost, const stage_t *st, pb_step_t *out, comm_sums_t *s,
                    pb_err_t *err)
{
    memset(s, 0, sizeof *s);
    pb_op_list_t ops;
    memset(&ops, 0, sizeof ops);
    pb_traffic_cfg_t tc = c->traffic;
    tc.recompute = c->recomp == PB_RECOMP_FULL; /* repeats the TP forward ops */
    if (m->experts > 0) /* the busiest rank is the all-to-all's hottest destination */
        tc.imbalance = pb_moe_rank_imbalance(pb_moe_imbalance(&c->moe, c->traffic.imbalance),
                                             l->size[PB_DIM_EP]);
    unsigned all = ((1u << PB_STRAT_COUNT) - 1) & ~(1u << PB_STRAT_SP);
    if (pb_traffic_gen(m, l, &tc, all, &ops, err) != PB_OK)
        return err->code;
    for (size_t i = 0; i < ops.n; i++)
        if (on_stage(&ops.ops[i], st))
            add_op(m, l, c, cost, &ops.ops[i], out, s);
    pb_op_list_free(&ops);
    return PB_OK;
}

double pb_step_z3_exposed(const pb_z3_t *z)
{
    double m = z->micro;
    /* each pass opens with a gather nothing precedes, and each backward
     * ends waiting for its last scatter (FSDP2's final post-backward
     * callback waits on the reduce-scatter stream); every other layer's
     * traffic hides behind its own pass's compute (prefetch), what
     * exceeds that compute shows */
    double first = m * (z->ag_one + z->rs_one);
    double f = z->fwd - m * z->ag_one - z->fwd_win;
    double b = z->bwd - m * z->rs_one - z->bwd_win;
    return first + (f > 0 ? f : 0.0) + (b > 0 ? b : 0.0);
}

/* The forward TP collectives the backward repeats: full recomputation's
 * are in the op list (the generator repeats them); layer:N repeats its
 * share of the layers'; torchtitan's op policy saves reduce-scatter
 * outputs but not all-gathers or all-reduces (activation_checkpoint.py
 * save list), so with SP half of a layer's forward collectives (its two
 * gathers of four) run again, without SP all of them. */
static double tp_recomputed(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                            const comm_sums_t *s)
{
    if (c->recomp == PB_RECOMP_FULL)
        return s->tp_fwd;
    if (c->recomp == PB_RECOMP_OP)
        return (l->sp ? 0.5 : 1.0) * s->tp_fwd;
    return pb_recomp_full_share(c->recomp, m->layers) * s->tp_fwd;
}

/* What of each strategy's communication shows on the critical path. */
static void expose(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                   const pb_hw_t *hw, const stage_t *st, const comm_sums_t *s, pb_step_t *out)
{
    int pp = l->size[PB_DIM_PP];
    int v = l->vp > 1 ? l->vp : 1;
    double micro = (double)out->micro;
    /* TP (Megatron-Core without userbuffers, doc/MODEL.md "Overlaps"):
     * the forward's collectives sit between GEMMs, exposed, and so do
     * those of a recomputed forward; backward, the input-gradient
     * all-reduce (or SP's gather / scatter) runs beside the weight-
     * gradient GEMMs, so only what outlasts them shows.  --tp-overlap
     * hides a further share of what remains. */
    double tp_rec = tp_recomputed(m, l, c, s);
    double tp_b = s->tp_bwd - (c->recomp == PB_RECOMP_FULL ? tp_rec : 0.0);
    if (c->recomp != PB_RECOMP_FULL)
        out->comm_total[PB_PART_TP] += tp_rec;
    double tp_win = c->overlap_tp_bwd ? micro * st->wgrad : 0.0;
    double tp_bx = tp_b > tp_win ? tp_b - tp_win : 0.0;
    /* what hides still costs: NCCL's kernels take SMs and memory
     * bandwidth from the GEMMs beside them (Calculon's processor_usage,
     * 0.15 for NVLink and 0.02 for the network: overlapped compute slows
     * by 1/(1 - usage), calculon-ai/calculon's systems files) */
    double tp_hidden = tp_b - tp_bx;
    double tp_shown = s->tp_fwd + tp_rec + tp_bx;
    double ub = pb_step_tp_overlap(l, c);
    out->part[PB_PART_TP] = tp_shown * (1.0 - ub) +
                            pb_step_hidden_cost(tp_hidden, out->net[PB_GK_TP]);
    /* what --tp-overlap hides slows the GEMMs it runs beside */
    out->part[PB_PART_COMPUTE] += pb_step_ub_cost(hw, tp_shown * ub);
    out->part[PB_PART_EP] = pb_moe_ep_exposed(&c->moe, out->comm_total[PB_PART_EP], micro, pp,
                                              st->fwd, st->bwd, hw->sms);
    double ppc = out->comm_total[PB_PART_PP];
    /* interleaved, and DualPipe's paired chunks: overlapped with compute,
     * the excess shows */
    if ((v > 1 && c->overlap_p2p) || c->dualpipe)
        ppc = ppc > out->part[PB_PART_COMPUTE] ? ppc - out->part[PB_PART_COMPUTE] : 0.0;
    out->part[PB_PART_PP] = ppc;
    double cpx = out->comm_total[PB_PART_CP] - micro * st->attn;
    out->part[PB_PART_CP] = cpx > 0 ? cpx : 0.0;
    double work = out->part[PB_PART_COMPUTE] + out->part[PB_PART_TP] + out->part[PB_PART_PP] +
                  out->part[PB_PART_EP] + out->part[PB_PART_CP];
    out->part[PB_PART_BUBBLE] = c->dualpipe ? pb_step_dualpipe_bubble(pp, st->fwd, st->bwd,
                                                                      st->wgrad, micro, work)
                                            : (double)(pp - 1) / ((double)v * micro) * work;

    /* DP: the gradient buckets behind the last micro-batch's backward
     * (the last bucket always shows), the parameter gathers behind the
     * next step's first forward, ZeRO-3's gathers behind all compute */
    double dpx = s->dp_bwd - (c->overlap_grad ? st->bwd : 0.0);
    dpx = dpx > s->dp_bwd_last ? dpx : s->dp_bwd_last;
    double agx = s->dp_opt - st->fwd;
    agx = agx > s->dp_opt_max ? agx : s->dp_opt_max;
    /* HSDP: the last layer's reduce-scatter is followed by its replicas'
     * all-reduce, both after the last backward compute */
    pb_z3_t z = {s->z3_fwd, s->z3_bwd, s->z3_ag_one, s->z3_rs_one + s->z3_ar_one, micro,
                 micro * st->fwd, micro * st->bwd};
    double z3x = pb_step_z3_exposed(&z);
    double shown = dpx + agx + z3x;
    out->part[PB_PART_DP] =
        shown + pb_step_hidden_cost(out->comm_total[PB_PART_DP] - shown, out->net[PB_GK_DP]);
}

/* Totals, throughput, MFU and the efficiencies the report prints. */
static void summarise(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                      const pb_hw_t *hw, pb_step_t *out)
{
    out->total = 0;
    for (int p = 0; p < PB_PART_COUNT; p++)
        out->total += out->part[p];
    uint64_t batch = out->micro * m->mbs * (uint64_t)l->size[PB_DIM_DP];
    out->flops = pb_flops_step(m, batch, c->causal, c->recomp);
    double W = (double)pb_layout_world(l);
    out->tokens_per_s = (double)batch * (double)m->seq / out->total;
    out->tflops_model = out->flops.model / out->total / W / 1e12;
    out->tflops_hw = out->flops.hw / out->total / W / 1e12;
    if (c->compute_tflops <= 0 && out->part[PB_PART_COMPUTE] > 0)
        /* the kernel model's rate: a GPU's share of the executed FLOPs
         * over the busiest stage's compute time */
        out->rate_tflops = out->flops.hw / W / out->part[PB_PART_COMPUTE] / 1e12;
    out->mfu = out->tflops_model / hw->bf16_tflops;
    out->hfu = out->tflops_hw / hw->bf16_tflops;
    double comp = out->part[PB_PART_COMPUTE];
    double work = comp + out->part[PB_PART_TP] + out->part[PB_PART_PP] + out->part[PB_PART_EP] +
                  out->part[PB_PART_CP];
    out->eff_tp = comp / (comp + out->part[PB_PART_TP]);
    double inner = work - out->part[PB_PART_PP];
    out->eff_pp = inner / (inner + out->part[PB_PART_PP] + out->part[PB_PART_BUBBLE]);
    out->eff_dp = (out->total - out->part[PB_PART_DP]) / out->total;
    out->bubble_frac = out->part[PB_PART_BUBBLE] / out->total;
    pb_mem_cap(hw, l, m->experts > 0, c->framework, out->net, &out->cap);
    out->fits = pb_mem_needed(out->mem.total) <= out->cap.usable;
}

int pb_step_model(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *cfg,
                  const pb_cost_t *cost, pb_step_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    /* gradients in the model's own type, known only now that the model is */
    pb_step_cfg_t resolved = *cfg;
    if (resolved.grad_model_dtype)
        resolved.traffic.grad_dtype = m->dtype;
    const pb_step_cfg_t *c = &resolved;
    const pb_hw_t *hw = cost->hw;
    if (c->fp8 && hw->fp8_tflops <= 0)
        return pb_err_set(err, PB_EINPUT, "fp8 GEMMs need a GPU with fp8 tensor cores (%s has none)",
                          hw->name);
    if (!c->fp8 && c->fp8_recipe != PB_FP8_TENSORWISE)
        return pb_err_set(err, PB_EINPUT, "an fp8 recipe (rowwise) needs fp8 linear layers (dtype fp8)");
    out->micro = pb_traffic_micro(m, l);
    if (c->dualpipe && pb_step_dualpipe_check(l, out->micro, err) != PB_OK)
        return err->code;
    double rate = c->compute_tflops > 0 ? c->compute_tflops : hw->bf16_tflops * hw->achievable;
    out->rate_tflops = rate;

    pb_mem_cfg_t mc;
    pb_step_mem_cfg(m, l, c, &mc);
    pb_memory(m, l, &mc, &out->mem);

    stage_t st;
    busiest_stage(m, l, c, hw, rate, &st);
    if (!c->grad_accum_fused) { /* after each backward, on the compute stream */
        double acc = pb_step_accum_stack_s(l, c, hw, out->mem.params_max);
        st.bwd += acc, st.mb += acc;
    }
    if (c->traffic.zero == PB_ZERO3 && c->zero3_copies && pb_layout_dp_shard(l) > 1) {
        double bf, bb;
        pb_step_fsdp_copy_bytes((double)pb_dtype_size(c->traffic.grad_dtype), &bf, &bb);
        double cf = pb_membound_s(hw, out->mem.params_max * bf);
        double cb = pb_membound_s(hw, out->mem.params_max * bb);
        st.fwd += cf, st.bwd += cb, st.mb += cf + cb;
    }
    out->part[PB_PART_COMPUTE] = (double)out->micro * st.mb + st.once;
    out->attn_share = st.attn_share;

    for (int k = 0; k < PB_GK_COUNT; k++)
        out->net[k] = pb_step_group_net(l, (pb_gkind_t)k, c->gpus_per_node);
    comm_sums_t sums;
    if (sum_comm(m, l, c, cost, &st, out, &sums, err) != PB_OK)
        return err->code;
    /* DeepSpeed's pipeline engine regathers each output before its
     * backward: on the pipeline's path, once per micro-batch */
    out->comm_total[PB_PART_PP] +=
        (double)out->micro * pb_step_ds_regather_s(m, l, c, cost, out->net[PB_GK_TP]);
    expose(m, l, c, hw, &st, &sums, out);

    double opt_params = out->mem.params_max;
    if (c->traffic.zero >= 1)
        opt_params /= (double)pb_layout_dp_shard(l);
    /* Adam: 30 bytes per parameter (read fp32 weight, moments, gradient;
     * write them and the bf16 copy), the gradient norm 4 more
     * (doc/MODEL.md, "Optimizer") */
    out->part[PB_PART_OPT] = opt_params * PB_ADAM_B_PER_PARAM / (hw->hbm_tbps * 1e12 * hw->hbm_eff);

    summarise(m, l, c, hw, out);
    return PB_OK;
}

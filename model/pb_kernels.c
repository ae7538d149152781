#include "pb_kernels.h"

#include <math.h>
#include <string.h>

/* Bytes per element of the memory-bound kernels (doc/MODEL.md,
 * "Memory-bound kernels" and "Stacks and FP8"): an fp8 cast_transpose
 * reads 2 B and writes 1 + 1; a norm fused with a current-scaling cast
 * writes bf16 and its amax, 3 B on its rows; the scaled-masked softmax and
 * the attention dropout per score, 4 + 5 forward, 6 + 5 backward;
 * Megatron's fp32 vocab-parallel cross-entropy per logit; a norm; an
 * embedding's gather and its scatter-add into the fp32 gradient. */
#define PB_FP8_CAST_B 4.0
#define PB_FP8_NORM_AMAX_B 3.0
#define PB_SCORE_FWD_B 9.0
#define PB_SCORE_BWD_B 11.0
#define PB_XENT_FWD_B 36.0
#define PB_XENT_BWD_B 12.0
#define PB_NORM_FWD_B 4.0
#define PB_NORM_BWD_B 6.0
#define PB_EMBED_FWD_B 4.0
#define PB_EMBED_BWD_B 10.0
/* flash attention's backward: 2.5 x the forward's work (it recomputes the
 * scores; Dao-AILab/flash-attention benchmarks/benchmark_flash_attention.py) */
#define PB_ATTN_BWD_X_FWD 2.5

/* Weight-gradient GEMMs accumulate into the fp32 main gradient: 0.02 -
 * 0.05 below fprop (MooreThreads/SimuMax configs/system/a100_pcie.json,
 * NT vs TN; doc/MODEL.md "GEMM"); the middle is used. */
#define PB_WGRAD_EFF 0.96
/* FP8 gradient GEMMs accumulate at full precision: Transformer Engine's
 * _2X_ACC_DGRAD and _2X_ACC_WGRAD are on (pytorch/module/base.py; the
 * forward's _2X_ACC_FPROP off), torchao's grad_input and grad_weight GEMMs
 * run use_fast_accum=False (float8/config.py, Float8GemmConfig()).  On an
 * H200, cuBLAS through torch._scaled_mm ran 48 Llama-layer GEMMs at 0.945
 * (median; 0.84-1.06) of its fast-accumulation rate
 * (bench/perf/fp8_scaled_mm.py, model/data/h200-fp8-gemm-2026-12-04.csv);
 * the fp8 rate (fp8_gemm_eff, MAMF's search) is a fast-accumulation one. */
#define PB_FP8_SPLIT_ACC 0.945
/* torchao's rowwise recipe over its tensorwise one, per element, from
 * torchao's roofline of the casts (torchao/testing/training/
 * roofline_utils.py, get_tensor_memory_traffic_ovhd_s): the input and the
 * output gradient 8 B against 6 (a row-scaled copy and a transposed bf16
 * one before the column-scaled cast), the weight 10 B against 8; and the
 * backward's two GEMMs, run without fast accumulation on the per-tensor
 * cuBLAS kernel, scaled after in a pointwise pass over their output
 * (float8/float8_ops.py: "The rowwise CUTLASS-based kernel is so slow
 * without fast-accum ..."; output *= post_inverse_scale): read and write
 * 2 B.  Its forward, the CUTLASS row-scaled kernel with fast
 * accumulation, ran at 0.987 (median, 48 GEMMs) of the per-tensor cuBLAS
 * one on the H200: the same rate. */
#define PB_FP8_ROW_CAST_B 2.0
#define PB_FP8_ROW_SCALE_B 4.0

double pb_membound_s(const pb_hw_t *hw, double bytes)
{
    return bytes / (hw->hbm_tbps * 1e12 * hw->hbm_eff) + PB_KERNEL_US * 1e-6;
}



pb_lin_t pb_kern_linear(const pb_hw_t *hw, double M, double N, double K, double batch, double eff)
{
    pb_lin_t r;
    r.fwd = pb_gemm_s(hw, M, N, K, batch) / eff;
    r.dgrad = pb_gemm_s(hw, M, K, N, batch) / eff;
    r.wgrad = pb_gemm_s(hw, K, N, M, batch) / (eff * PB_WGRAD_EFF);
    return r;
}

pb_lin_t pb_kern_linear_c(const pb_hw_t *hw, const pb_kern_cfg_t *c, double M, double N,
                          double K, double batch, double eff)
{
    if (!c->fp8 || hw->fp8_tflops <= 0)
        return pb_kern_linear(hw, M, N, K, batch, eff);
    /* Transformer Engine runs all three GEMMs in fp8 (the "hybrid"
     * format: E4M3 forward, E5M2 gradients) */
    pb_lin_t r;
    r.fwd = pb_gemm_fp8_s(hw, M, N, K, batch) / eff;
    r.dgrad = pb_gemm_fp8_s(hw, M, K, N, batch) / (eff * PB_FP8_SPLIT_ACC);
    r.wgrad = pb_gemm_fp8_s(hw, K, N, M, batch) / (eff * PB_WGRAD_EFF * PB_FP8_SPLIT_ACC);
    return r;
}

/* Transformer Engine on Hopper (transformer_engine/pytorch/module/
 * linear.py, layernorm_linear.py; doc/MODEL.md "Stacks and FP8"): an FP8
 * GEMM takes only the TN layout, so each cast writes the row-wise copy
 * and, for the other GEMM, a transposed column-wise one (cast_transpose:
 * read 2 B, write 1 + 1 B).  The forward casts the input (wgrad reads its
 * transpose) and the weight (dgrad reads its transpose); the backward
 * casts the output gradient (dgrad row-wise, wgrad column-wise).  Delayed
 * scaling takes the scale from the amax history, found inside the cast
 * kernels; current scaling needs the tensor's amax first, one more read
 * of 2 B in its own kernel.  A norm feeding QKV or FC1 writes the fp8
 * input itself (normalization.cpp: FULLY_FUSED with a Float8Quantizer),
 * 1 B where the bf16 norm wrote 2 (on its Ms rows), and the transpose
 * for wgrad is one more pass (read 1, write 1, on the M gathered rows);
 * under current scaling the norm writes bf16 and its amax
 * (FUSED_NORM_AMAX_FP8), then a cast_transpose of the Ms rows (read 2,
 * write 1) and the transposed copy of the M rows (write 1, read 1). */
pb_fp8_cast_t pb_fp8_cast_bytes(const pb_fw_fp8_t *r, double M, double Ms, double N, double K,
                                int norm_fed)
{
    pb_fp8_cast_t k;
    double amax = r->current ? 2.0 : 0.0, ka = r->current ? 1.0 : 0.0;
    if (norm_fed && r->norm_fused && !r->current)
        k.in_fwd = -1.0 * Ms * K + 2.0 * M * K, k.k_fwd = 1.0;
    else if (norm_fed && r->norm_fused)
        k.in_fwd = PB_FP8_NORM_AMAX_B * Ms * K + 2.0 * M * K, k.k_fwd = 2.0;
    else
        k.in_fwd = (PB_FP8_CAST_B + amax) * M * K, k.k_fwd = 1.0 + ka;
    k.w = (PB_FP8_CAST_B + amax) * K * N, k.k_w = 1.0 + ka;
    k.grad_bwd = (PB_FP8_CAST_B + amax) * M * N, k.k_bwd = 1.0 + ka;
    return k;
}

double pb_fp8_split_acc(void)
{
    return PB_FP8_SPLIT_ACC;
}

void pb_fp8_rowwise_extra(pb_fp8_cast_t *k, double M, double N, double K)
{
    k->in_fwd += PB_FP8_ROW_CAST_B * M * K;
    k->w += PB_FP8_ROW_CAST_B * K * N;
    /* the scaling passes over dgrad's M x K and wgrad's K x N outputs */
    k->grad_bwd += PB_FP8_ROW_CAST_B * M * N + PB_FP8_ROW_SCALE_B * (M * K + K * N);
    k->k_bwd += 2.0;
}

void pb_kern_add_lin(pb_layer_time_t *o, pb_lin_t l)
{
    o->fwd += l.fwd;
    o->bwd += l.dgrad + l.wgrad;
    o->wgrad += l.wgrad;
}

/* attention core of one micro-batch on one GPU; *fwd_s, *bwd_s */
static void attn_core(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                      double *fwd_s, double *bwd_s)
{
    double b = (double)m->mbs, s = (double)m->seq, sq = s / c->cp;
    double heads = (double)m->heads / c->tp, hd = (double)pb_model_head_dim(m);
    if (c->flash) {
        /* fused kernel: forward 4*b*sq*s*hd per head (half when causal),
         * backward 2.5x the forward's work (it recomputes the scores),
         * at the GPU's fused-attention rate for forward + backward */
        double f = PB_FLOPS_ATTN_SCORE * b * sq * s * hd * heads * (c->causal ? 0.5 : 1.0);
        double rate = (pb_fw_desc(c->fw)->attn_fa2 ? hw->attn_fa2_tflops : hw->attn_tflops) *
                      1e12 * hw->sustained;
        *fwd_s = f / rate + PB_KERNEL_US * 1e-6;
        *bwd_s = PB_ATTN_BWD_X_FWD * f / rate + PB_KERNEL_US * 1e-6;
        return;
    }
    /* materialised: Q.K^T and P.V as batched GEMMs over b*heads, the
     * scaled-masked softmax and the attention dropout over every score
     * (masking does not skip work): 4 + 5 bytes per bf16 score forward,
     * 6 + 5 backward (doc/MODEL.md, "Memory-bound kernels") */
    double bh = b * heads, scores = bh * sq * s;
    pb_lin_t qk = pb_kern_linear(hw, sq, s, hd, bh, 1.0);
    pb_lin_t pv = pb_kern_linear(hw, sq, hd, s, bh, 1.0);
    *fwd_s = qk.fwd + pv.fwd + pb_membound_s(hw, PB_SCORE_FWD_B * scores);
    *bwd_s = qk.dgrad + qk.wgrad + pv.dgrad + pv.wgrad + pb_membound_s(hw, PB_SCORE_BWD_B * scores);
}

/* The memory-bound kernels of a layer as the stack runs them
 * (pb_framework.h): bytes and launches, forward and backward. */
typedef struct mb {
    double fb, bb, kf, kb;
} mb_t;

static void mb_add(mb_t *x, const pb_fw_kern_t *k, double elems, double times)
{
    x->fb += times * k->fb * elems, x->bb += times * k->bb * elems;
    x->kf += times * k->kf, x->kb += times * k->kb;
}

/* two norms and two residual branches on the norms' tokens (T_sp x h),
 * the activation on act_elems, rotary on q and k (gated = Llama-style
 * models: RMSNorm, SwiGLU, RoPE; plain: LayerNorm, GeLU) */
static mb_t layer_membound(const pb_model_t *m, const pb_fw_desc_t *d, double ah,
                           double act_elems, double q_elems, double k_elems)
{
    mb_t x = {0, 0, 0, 0};
    mb_add(&x, m->gated ? &d->rmsnorm : &d->layernorm, ah, 2.0);
    mb_add(&x, &d->resid, ah, 2.0);
    mb_add(&x, m->gated ? &d->swiglu : &d->gelu, act_elems, 1.0);
    if (m->gated) {
        mb_add(&x, &d->rope, q_elems, 1.0);
        mb_add(&x, &d->rope, k_elems, 1.0);
    }
    return x;
}

/* seconds of `bytes` in `kernels` launches: one floor per pass for the
 * fused stacks, one per kernel for the eager ones */
static double mb_time(const pb_hw_t *hw, const pb_fw_desc_t *d, double bytes, double kernels)
{
    double extra = d->floor_per_kernel && kernels > 1.0 ? kernels - 1.0 : 0.0;
    return pb_membound_s(hw, bytes) + extra * PB_KERNEL_US * 1e-6;
}

/* A linear layer as configured: its GEMMs, and with fp8 the casts of
 * its input, weight and output gradient (pb_fp8_cast_bytes) into the
 * memory-bound tallies; cached weight casts are paid once per step. */
static void add_linear(const pb_hw_t *hw, const pb_kern_cfg_t *c, double M, double Ms, double N,
                       double K, int norm_fed, pb_layer_time_t *o, mb_t *x)
{
    pb_kern_add_lin(o, pb_kern_linear_c(hw, c, M, N, K, 1.0, 1.0));
    if (!c->fp8)
        return;
    const pb_fw_fp8_t *r = &pb_fw_desc(c->fw)->fp8;
    pb_fp8_cast_t k = pb_fp8_cast_bytes(r, M, Ms, N, K, norm_fed);
    if (c->fp8_recipe == PB_FP8_ROWWISE)
        pb_fp8_rowwise_extra(&k, M, N, K);
    x->fb += k.in_fwd, x->kf += k.k_fwd;
    x->bb += k.grad_bwd, x->kb += k.k_bwd;
    if (r->weight_cached)
        o->once += pb_membound_s(hw, k.w) + (k.k_w - 1.0) * PB_KERNEL_US * 1e-6;
    else
        x->fb += k.w, x->kf += k.k_w;
}

/* What the backward repeats of the forward.  op: torchtitan's op-level
 * policy saves matmul, attention and reduce-scatter outputs but every
 * second matmul of a block, so it repeats the memory-bound forward and
 * the K, output and up (plain MLP: down) projections, and an MoE MLP
 * whole (pb_flops.c, op_recompute_weights). */
static double recompute_s(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                          const pb_layer_time_t *o, double af, double mb_fwd, double moe_fwd,
                          double T)
{
    double tp = c->tp, h = (double)m->hidden, hd = (double)pb_model_head_dim(m);
    if (c->recomp == PB_RECOMP_FULL)
        return o->fwd;
    if (c->recomp == PB_RECOMP_SELECTIVE)
        return c->flash ? 0.0 : af; /* the score part; flash recomputes it anyway */
    if (c->recomp == PB_RECOMP_OP) {
        double kd = (double)m->kv_heads * hd / tp, qd = (double)m->heads * hd / tp;
        double mm = pb_kern_linear_c(hw, c, T, kd, h, 1.0, 1.0).fwd +
                    pb_kern_linear_c(hw, c, T, h, qd, 1.0, 1.0).fwd;
        if (moe_fwd > 0)
            mm += moe_fwd;
        else
            mm += pb_kern_linear_c(hw, c, T, m->gated ? (double)m->ffn / tp : h,
                                   m->gated ? h : (double)m->ffn / tp, 1.0, 1.0).fwd;
        return mb_fwd + mm;
    }
    return pb_recomp_full_share(c->recomp, c->layers) * o->fwd;
}

/* This function lists every kernel of a layer in order; splitting it
 * would scatter the one list the model is checked against. */
void pb_kern_layer(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, int moe,
                   pb_layer_time_t *o)
{
    memset(o, 0, sizeof *o);
    const pb_fw_desc_t *d = pb_fw_desc(c->fw);
    double tp = c->tp, h = (double)m->hidden, hd = (double)pb_model_head_dim(m);
    double T = (double)m->mbs * (double)m->seq / c->cp; /* tokens of this TP group */
    double q = (double)m->heads * hd, kv = (double)m->kv_heads * hd;
    double T_sp = c->sp ? T / tp : T; /* tokens the norms and dropouts see */
    mb_t x = {0, 0, 0, 0};

    add_linear(hw, c, T, T_sp, (q + 2.0 * kv) / tp, h, 1, o, &x); /* QKV, fed by the norm */
    double af, ab;
    attn_core(m, hw, c, &af, &ab); /* bf16: fp8 attention is off by default in TE */
    o->fwd += af, o->bwd += ab, o->attn = af + ab;
    add_linear(hw, c, T, T_sp, h, q / tp, 0, o, &x); /* attention output */

    double ffn = (double)(moe && m->moe_ffn ? m->moe_ffn : m->ffn);
    double up = (m->gated ? 2.0 : 1.0) * ffn / tp;
    double act_elems, moe_fwd = 0.0;
    if (!moe) {
        add_linear(hw, c, T, T_sp, up, h, 1, o, &x); /* FC1, fed by the norm */
        add_linear(hw, c, T, T_sp, h, ffn / tp, 0, o, &x);
        act_elems = T * ffn / tp;
    } else {
        double before = o->fwd;
        act_elems = pb_kern_moe_mlp(m, hw, c, T, o);
        moe_fwd = o->fwd - before;
    }
    /* memory-bound kernels: the stack's bytes per element and launches
     * (pb_framework.c), with the fp8 casts tallied above */
    mb_t k = layer_membound(m, d, T_sp * h, act_elems, T * q / tp, T * kv / tp);
    x.fb += k.fb, x.bb += k.bb, x.kf += k.kf, x.kb += k.kb;
    double mb_fwd = mb_time(hw, d, x.fb, x.kf);
    o->fwd += mb_fwd;
    o->bwd += mb_time(hw, d, x.bb, x.kb);
    o->recomp = recompute_s(m, hw, c, o, af, mb_fwd, moe_fwd, T);
}

void pb_kern_logits(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                    pb_layer_time_t *o)
{
    memset(o, 0, sizeof *o);
    double T = (double)m->mbs * (double)m->seq / c->cp;
    double Vt = (double)m->vocab / c->tp;
    pb_kern_add_lin(o, pb_kern_linear(hw, T, Vt, (double)m->hidden, 1.0, 1.0));
    /* final norm, and Megatron's vocab-parallel cross-entropy in fp32:
     * about 36 bytes per logit forward, 12 backward (Megatron-LM
     * tensor_parallel/cross_entropy.py; doc/MODEL.md, "Memory-bound
     * kernels") */
    double ah = (c->sp ? T / c->tp : T) * (double)m->hidden;
    o->fwd += pb_membound_s(hw, PB_XENT_FWD_B * T * Vt + PB_NORM_FWD_B * ah);
    o->bwd += pb_membound_s(hw, PB_XENT_BWD_B * T * Vt + PB_NORM_BWD_B * ah);
}

void pb_kern_embed(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                   pb_layer_time_t *o)
{
    memset(o, 0, sizeof *o);
    /* a gather of T rows forward, a scatter-add into the fp32 gradient
     * backward */
    double ah = (double)m->mbs * (double)m->seq / c->cp * (double)m->hidden;
    o->fwd = pb_membound_s(hw, PB_EMBED_FWD_B * ah);
    o->bwd = pb_membound_s(hw, PB_EMBED_BWD_B * ah);
}

#include "pb_kernels.h"

#include <math.h>
#include <string.h>

/* The narrow-dimension loss d / (d + PB_GEMM_DIM0): fitted by eye to
 * SimuMax's 183 measured A100 shapes (MooreThreads/SimuMax
 * configs/system/a100_pcie.json, accurate_efficient_factor of 312 TFLOP/s:
 * min dim >= 3072 about 0.74 of peak, 1536-2048 0.70, 768-1024 0.62) and to the EleutherAI cookbook's attention-score BMM
 * (K = 128: 130 of 312 TFLOP/s, 1.3e); one constant for every GPU. */
#define PB_GEMM_DIM0 192.0
/* Operand bytes of a bf16 GEMM reach at most this share of HBM bandwidth
 * (vLLM small-M H100 sweep: 85-87 % of the roofline, 1.3c). */
#define PB_GEMM_HBM_EFF 0.85
/* Grouped (MoE expert) GEMMs against a dense GEMM of the same shape:
 * SimuMax grouped 0.63 / 0.68 / 0.52 (fprop, dgrad, wgrad) vs about 0.70
 * dense at those shapes (1.3b). */
#define PB_GROUPED_EFF 0.85
/* Weight-gradient GEMMs accumulate into the fp32 main gradient: 0.02 -
 * 0.05 below fprop (SimuMax NT vs TN, 1.5); the middle is used. */
#define PB_WGRAD_EFF 0.96
/* Token permutation is a row gather / scatter by routing index: it
 * reaches a lower share of HBM bandwidth than a streaming kernel.
 * SimuMax's measured bandwidth factors (COMPUTE-AND-OVERLAP.md 3.1):
 * permute 0.50 of peak on B200 (Transformer Engine's fused permute),
 * 0.19 on A100 PCIe, against 0.67 / 0.91 for their default kernels; the
 * fused kernel's 0.50 is used on every GPU. */
#define PB_PERMUTE_HBM 0.50
/* Launch and synchronisation floor of a kernel: a few microseconds each
 * (COMPUTE-AND-OVERLAP.md 3.1, "budget a few us per kernel launch"). */
#define PB_KERNEL_US 4.0

static double dimf(double d)
{
    return d / (d + PB_GEMM_DIM0);
}

/* output tiles of tm x tn of `batch` GEMMs filling waves of `sms`
 * thread blocks */
static double wave_fill(double M, double N, double batch, double tm, double tn, int sms)
{
    double tiles = ceil(M / tm) * ceil(N / tn) * batch;
    double waves = ceil(tiles / (double)sms);
    return tiles / (waves * (double)sms);
}

static double eff_batch(const pb_hw_t *hw, double M, double N, double K, double batch)
{
    if (M < 1 || N < 1 || K < 1)
        return hw->gemm_eff;
    /* cuBLAS picks among tile shapes: the large tile (the guide's most
     * efficient, 256x128) or half of it, a little less efficient per
     * tile (NVIDIA Matrix Multiplication guide 2.3), whichever fills its
     * waves better */
    double big = wave_fill(M, N, batch, hw->tile_m, hw->tile_n, hw->sms);
    double small = 0.9 * wave_fill(M, N, batch, hw->tile_m / 2.0, hw->tile_n, hw->sms);
    double fill = big > small ? big : small;
    /* M (tokens) loses like N and K down to 256; below, GEMMs run at the
     * HBM roofline of their weights (vLLM's H100 sweep: M = 16-128 at
     * 85-87 % of it, COMPUTE-AND-OVERLAP.md 1.3c), the floor of
     * pb_gemm_s, so no M loss is charged there */
    double m_loss = M >= 256.0 ? dimf(M) : 1.0;
    return hw->gemm_eff * m_loss * dimf(N) * dimf(K) * fill;
}

double pb_gemm_eff(const pb_hw_t *hw, double M, double N, double K)
{
    return eff_batch(hw, M, N, K, 1.0);
}

double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch)
{
    if (batch <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 0.0;
    double flops = 2.0 * M * N * K * batch;
    double t = flops / (hw->bf16_tflops * 1e12 * eff_batch(hw, M, N, K, batch));
    double bytes = 2.0 * (M * K + K * N + M * N) * batch;
    double floor = bytes / (hw->hbm_tbps * 1e12 * PB_GEMM_HBM_EFF);
    return (t > floor ? t : floor) + PB_KERNEL_US * 1e-6;
}

double pb_membound_s(const pb_hw_t *hw, double bytes)
{
    return bytes / (hw->hbm_tbps * 1e12 * hw->hbm_eff) + PB_KERNEL_US * 1e-6;
}

int pb_moe_permute_passes(pb_ep_disp_t disp, int local_experts)
{
    /* Megatron-Core: the alltoall dispatcher permutes globally (by
     * destination) before the all-to-all and sorts the received chunks by
     * local expert after it; DeepEP's dispatch kernel does the global
     * permute itself and leaves the one local permute ("Optimizing
     * DeepSeek-V3 Training Performance on GB200 NVL72", Megatron-LM docs,
     * 2.1.1).  With one expert per rank there is no local sort (MoE
     * README: with EP = experts "the local token permutation/un-
     * permutation for experts computation are omitted"). */
    int local = local_experts > 1;
    return disp == PB_EP_DISP_FLEX ? 1 : 1 + local;
}

double pb_moe_permute_s(const pb_hw_t *hw, double copies_x_h, int passes)
{
    if (passes <= 0 || copies_x_h <= 0)
        return 0.0;
    /* permute + unpermute per pass, 4 bytes (bf16 read and write) per
     * element, at the gather/scatter's own HBM efficiency */
    double bytes = 2.0 * 4.0 * copies_x_h * passes;
    return passes * 2.0 * PB_KERNEL_US * 1e-6 + bytes / (hw->hbm_tbps * 1e12 * PB_PERMUTE_HBM);
}

/* forward + dgrad + wgrad of a linear layer y[M,N] = x[M,K] w[K,N] */
typedef struct lin {
    double fwd, dgrad, wgrad;
} lin_t;

static lin_t linear(const pb_hw_t *hw, double M, double N, double K, double batch, double eff)
{
    lin_t r;
    r.fwd = pb_gemm_s(hw, M, N, K, batch) / eff;
    r.dgrad = pb_gemm_s(hw, M, K, N, batch) / eff;
    r.wgrad = pb_gemm_s(hw, K, N, M, batch) / (eff * PB_WGRAD_EFF);
    return r;
}

static void add_lin(pb_layer_time_t *o, lin_t l)
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
        double f = 4.0 * b * sq * s * hd * heads * (c->causal ? 0.5 : 1.0);
        double rate = hw->attn_tflops * 1e12;
        *fwd_s = f / rate + PB_KERNEL_US * 1e-6;
        *bwd_s = 2.5 * f / rate + PB_KERNEL_US * 1e-6;
        return;
    }
    /* materialised: Q.K^T and P.V as batched GEMMs over b*heads, the
     * scaled-masked softmax and the attention dropout over every score
     * (masking does not skip work): 4 + 5 bytes per bf16 score forward,
     * 6 + 5 backward (COMPUTE-AND-OVERLAP.md 3.2) */
    double bh = b * heads, scores = bh * sq * s;
    lin_t qk = linear(hw, sq, s, hd, bh, 1.0);
    lin_t pv = linear(hw, sq, hd, s, bh, 1.0);
    *fwd_s = qk.fwd + pv.fwd + pb_membound_s(hw, 9.0 * scores);
    *bwd_s = qk.dgrad + qk.wgrad + pv.dgrad + pv.wgrad + pb_membound_s(hw, 11.0 * scores);
}

/* This function lists every kernel of a layer in order; splitting it
 * would scatter the one list the model is checked against. */
void pb_kern_layer(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, int moe,
                   pb_layer_time_t *o)
{
    memset(o, 0, sizeof *o);
    double tp = c->tp, h = (double)m->hidden, hd = (double)pb_model_head_dim(m);
    double T = (double)m->mbs * (double)m->seq / c->cp; /* tokens of this TP group */
    double q = (double)m->heads * hd, kv = (double)m->kv_heads * hd;
    double T_sp = c->sp ? T / tp : T; /* tokens the norms and dropouts see */

    add_lin(o, linear(hw, T, (q + 2.0 * kv) / tp, h, 1.0, 1.0)); /* QKV */
    double af, ab;
    attn_core(m, hw, c, &af, &ab);
    o->fwd += af, o->bwd += ab, o->attn = af + ab;
    add_lin(o, linear(hw, T, h, q / tp, 1.0, 1.0)); /* attention output */

    double ffn = (double)(moe && m->moe_ffn ? m->moe_ffn : m->ffn);
    double up = (m->gated ? 2.0 : 1.0) * ffn / tp;
    double act_elems;
    if (!moe) {
        add_lin(o, linear(hw, T, up, h, 1.0, 1.0));
        add_lin(o, linear(hw, T, h, ffn / tp, 1.0, 1.0));
        act_elems = T * ffn / tp;
    } else {
        /* router, then the local experts as one grouped GEMM: an EP
         * rank holds the tokens of its expert-TP group (T*etp/tp), the
         * EP group's routed tokens spread over the experts (balanced),
         * experts/ep of them here, each split etp ways */
        double E = (double)m->experts, k = (double)m->topk, etp = c->etp;
        add_lin(o, linear(hw, T, E, h, 1.0, 1.0));
        double per_expert = T * etp / tp * c->ep * k / E, local = E / c->ep;
        double e_up = (m->gated ? 2.0 : 1.0) * ffn / etp;
        add_lin(o, linear(hw, per_expert, e_up, h, local, PB_GROUPED_EFF));
        add_lin(o, linear(hw, per_expert, h, ffn / etp, local, PB_GROUPED_EFF));
        act_elems = T * k * ffn / tp;
        /* permute and unpermute, forward and backward: each pass reads
         * and writes every routed copy's h bf16 values (pb_moe_permute_s) */
        double perm = pb_moe_permute_s(hw, T * k / (c->sp ? tp : 1.0) * h,
                                       pb_moe_permute_passes(c->disp, (int)local));
        o->fwd += perm;
        o->bwd += perm;
    }
    /* memory-bound kernels, bytes per element (COMPUTE-AND-OVERLAP.md
     * 3.2): two norms 4 fwd / 6 bwd, two bias-dropout-residual 7 / 5 on
     * T_sp*h; the activation on T*ffn/tp: GeLU 4 / 6, SwiGLU 6 / 10;
     * rotary 4 / 4 on the q and k elements (gated = Llama-style models) */
    double ah = T_sp * h;
    double fb = ah * (2 * 4.0 + 2 * 7.0) + act_elems * (m->gated ? 6.0 : 4.0);
    double bb = ah * (2 * 6.0 + 2 * 5.0) + act_elems * (m->gated ? 10.0 : 6.0);
    if (m->gated) {
        fb += 4.0 * T * (q + kv) / tp;
        bb += 4.0 * T * (q + kv) / tp;
    }
    o->fwd += pb_membound_s(hw, fb);
    o->bwd += pb_membound_s(hw, bb);

    if (c->recomp == PB_RECOMP_FULL)
        o->recomp = o->fwd;
    else if (c->recomp == PB_RECOMP_SELECTIVE && !c->flash)
        o->recomp = af; /* the score part; flash recomputes it anyway */
}

void pb_kern_logits(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                    pb_layer_time_t *o)
{
    memset(o, 0, sizeof *o);
    double T = (double)m->mbs * (double)m->seq / c->cp;
    double Vt = (double)m->vocab / c->tp;
    add_lin(o, linear(hw, T, Vt, (double)m->hidden, 1.0, 1.0));
    /* final norm, and Megatron's vocab-parallel cross-entropy in fp32:
     * about 36 bytes per logit forward, 12 backward (3.2) */
    double ah = (c->sp ? T / c->tp : T) * (double)m->hidden;
    o->fwd += pb_membound_s(hw, 36.0 * T * Vt + 4.0 * ah);
    o->bwd += pb_membound_s(hw, 12.0 * T * Vt + 6.0 * ah);
}

void pb_kern_embed(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                   pb_layer_time_t *o)
{
    memset(o, 0, sizeof *o);
    /* a gather of T rows forward, a scatter-add into the fp32 gradient
     * backward */
    double ah = (double)m->mbs * (double)m->seq / c->cp * (double)m->hidden;
    o->fwd = pb_membound_s(hw, 4.0 * ah);
    o->bwd = pb_membound_s(hw, 10.0 * ah);
}

#include "pb_kernels.h"

#include <math.h>
#include <string.h>

/* Weight-gradient GEMMs accumulate into the fp32 main gradient: 0.02 -
 * 0.05 below fprop (SimuMax NT vs TN, 1.5); the middle is used. */
#define PB_WGRAD_EFF 0.96

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
    pb_lin_t qk = pb_kern_linear(hw, sq, s, hd, bh, 1.0);
    pb_lin_t pv = pb_kern_linear(hw, sq, hd, s, bh, 1.0);
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

    pb_kern_add_lin(o, pb_kern_linear(hw, T, (q + 2.0 * kv) / tp, h, 1.0, 1.0)); /* QKV */
    double af, ab;
    attn_core(m, hw, c, &af, &ab);
    o->fwd += af, o->bwd += ab, o->attn = af + ab;
    pb_kern_add_lin(o, pb_kern_linear(hw, T, h, q / tp, 1.0, 1.0)); /* attention output */

    double ffn = (double)(moe && m->moe_ffn ? m->moe_ffn : m->ffn);
    double up = (m->gated ? 2.0 : 1.0) * ffn / tp;
    double act_elems;
    if (!moe) {
        pb_kern_add_lin(o, pb_kern_linear(hw, T, up, h, 1.0, 1.0));
        pb_kern_add_lin(o, pb_kern_linear(hw, T, h, ffn / tp, 1.0, 1.0));
        act_elems = T * ffn / tp;
    } else {
        act_elems = pb_kern_moe_mlp(m, hw, c, T, o);
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
    pb_kern_add_lin(o, pb_kern_linear(hw, T, Vt, (double)m->hidden, 1.0, 1.0));
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

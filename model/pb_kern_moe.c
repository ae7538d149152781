#include "pb_kernels.h"
#include "pb_moe.h"

#include <math.h>
#include <string.h>

/* Token permutation is a gather / scatter of whole rows (h bf16 values,
 * 8-14 KB each) by routing index: it streams each row but pays for the
 * index reads and the scattered row starts.  SimuMax measured Transformer
 * Engine's fused permute at 0.50 of the B200's HBM peak where its default
 * memory-bound kernel reaches 0.67 (MooreThreads/SimuMax
 * configs/system/b200_bf16_ceperm.json, accelerator.bandwidth permute_fwd
 * 0.501, default 0.666; doc/MODEL.md): the gather keeps 0.50 / 0.67 =
 * 0.75 of a streaming kernel's rate.  That ratio is the kernel's, not the
 * GPU's: it multiplies each preset's own streaming efficiency (hbm_eff). */
#define PB_PERMUTE_REL (0.50 / 0.67)
/* bytes per element of a permute or unpermute: bf16 read and written */
#define PB_PERMUTE_B 4.0

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
    double bytes = 2.0 * PB_PERMUTE_B * copies_x_h * passes;
    return passes * 2.0 * PB_KERNEL_US * 1e-6 +
           bytes / (hw->hbm_tbps * 1e12 * hw->hbm_eff * PB_PERMUTE_REL);
}

/* One grouped GEMM's forward (or input-gradient) pass: `groups` local
 * experts of m tokens each, an N x K weight each.  The kernel's tiles
 * cover all groups at once (DeepGEMM and Transformer Engine group the M
 * axis), so the GPU is as full as for one GEMM of m x groups rows: the
 * dense efficiency is taken there; each expert's last M tile is the
 * grouped loss (pb_moe_grouped_eff); every expert's own weights go
 * through HBM, the floor when m is small. */
/* fp8: Transformer Engine's GroupedLinear runs its GEMMs in fp8 like
 * Linear (transformer_engine/pytorch/module/grouped_linear.py: the inputs
 * and weights quantized per group, general_grouped_gemm on the fp8
 * tensors), at the preset's best-shape fp8 share with the bf16 shape
 * losses, operands of 1 B */
static double grouped_s(const pb_hw_t *hw, int fp8, double m, double N, double K, double groups)
{
    if (m <= 0 || groups <= 0)
        return 0.0;
    double in = fp8 ? 1.0 : 2.0;
    return pb_gemm_time_s(hw, fp8, 2.0 * m * N * K * groups,
                          pb_gemm_shape(m * groups, N, K) * pb_moe_grouped_eff(m),
                          (in * (m * K + K * N) + 2.0 * m * N) * groups);
}

double pb_moe_grouped_s(const pb_hw_t *hw, double m, double N, double K, double groups)
{
    return grouped_s(hw, 0, m, N, K, groups);
}

/* an expert linear layer: forward and input gradient grouped as above;
 * the weight gradient reduces over each expert's own m tokens, so it is
 * the dense GEMM of that reduction length (per tile, the K loop is m
 * long), with the same last-tile loss */
static pb_lin_t expert_linear(const pb_hw_t *hw, const pb_kern_cfg_t *c, double m, double N,
                              double K, double groups, pb_layer_time_t *o)
{
    int fp8 = c->fp8 && hw->fp8_tflops > 0;
    pb_lin_t l = pb_kern_linear_c(hw, c, m, N, K, groups, pb_moe_grouped_eff(m));
    l.fwd = grouped_s(hw, fp8, m, N, K, groups);
    /* the gradient GEMMs accumulate at full precision (TE's grouped
     * GEMMs take the same _2X_ACC flags as Linear's) */
    l.dgrad = grouped_s(hw, fp8, m, K, N, groups) / (fp8 ? pb_fp8_split_acc() : 1.0);
    if (fp8) {
        /* each expert's input, weight and output-gradient casts, as a
         * Linear's (pb_fp8_cast_bytes; the routed copies are no norm's
         * output), one set per local expert */
        const pb_fw_fp8_t *r = &pb_fw_desc(c->fw)->fp8;
        pb_fp8_cast_t k = pb_fp8_cast_bytes(r, m, m, N, K, 0);
        l.fwd += groups * pb_membound_s(hw, k.in_fwd);
        l.dgrad += groups * pb_membound_s(hw, k.grad_bwd);
        if (r->weight_cached)
            o->once += groups * pb_membound_s(hw, k.w);
        else
            l.fwd += groups * pb_membound_s(hw, k.w);
    }
    return l;
}

/* the shared experts: a dense (gated) MLP of shared_ffn beside the
 * routed ones, split by TP as the attention is (Megatron-Core MoE README,
 * "Shared Experts": they "follow the settings of the dense part") */
static double shared_mlp(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, double tp,
                         double T, pb_layer_time_t *o)
{
    if (m->shared_ffn == 0)
        return 0.0;
    double h = (double)m->hidden, sf = (double)m->shared_ffn;
    pb_kern_add_lin(o,
                    pb_kern_linear_c(hw, c, T, (m->gated ? 2.0 : 1.0) * sf / tp, h, 1.0, 1.0));
    pb_kern_add_lin(o, pb_kern_linear_c(hw, c, T, h, sf / tp, 1.0, 1.0));
    return T * sf / tp;
}

double pb_kern_moe_mlp(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, double T,
                       pb_layer_time_t *o)
{
    double tp = c->tp, h = (double)m->hidden;
    double ffn = (double)(m->moe_ffn ? m->moe_ffn : m->ffn);
    /* router, then the local experts as one grouped GEMM: an EP rank
     * holds the tokens of its expert-TP group (T*etp/tp), the EP group's
     * routed tokens spread over the experts, experts/ep of them here,
     * each split etp ways; the busiest rank gets F x the mean, and the
     * layer waits for it at the combine */
    double E = (double)m->experts, k = (double)m->topk, etp = c->etp;
    double F = pb_moe_rank_imbalance(c->moe_imb > 0 ? c->moe_imb : PB_MOE_IMBALANCE, c->ep);
    pb_kern_add_lin(o, pb_kern_linear(hw, T, E, h, 1.0, 1.0));
    double per_expert = T * etp / tp * c->ep * k / E, local = E / c->ep;
    double e_up = (m->gated ? 2.0 : 1.0) * ffn / etp;
    pb_layer_time_t ex;
    memset(&ex, 0, sizeof ex);
    pb_kern_add_lin(&ex, expert_linear(hw, c, per_expert, e_up, h, local, o));
    pb_kern_add_lin(&ex, expert_linear(hw, c, per_expert, h, ffn / etp, local, o));
    /* permute and unpermute, forward and backward: each pass reads and
     * writes every routed copy's h bf16 values (pb_moe_permute_s); the
     * alltoall dispatcher's global permute is of the rank's own tokens
     * (balanced), the local one of the tokens it received (F x) */
    int passes = pb_moe_permute_passes(c->disp, (int)local);
    int global = c->disp == PB_EP_DISP_FLEX ? 0 : 1;
    double x = T * k / (c->sp ? tp : 1.0) * h;
    double perm_local = pb_moe_permute_s(hw, x, passes - global);
    ex.fwd += perm_local, ex.bwd += perm_local;
    double perm_global = pb_moe_permute_s(hw, x, global);
    o->fwd += F * ex.fwd + perm_global;
    o->bwd += F * ex.bwd + perm_global;
    o->wgrad += F * ex.wgrad;
    return T * k * ffn / tp * F + shared_mlp(m, hw, c, tp, T, o);
}

#include "pb_kernels.h"

#include <math.h>

/* Grouped (MoE expert) GEMMs against a dense GEMM of the same shape:
 * SimuMax grouped 0.63 / 0.68 / 0.52 (fprop, dgrad, wgrad) vs about 0.70
 * dense at those shapes (1.3b). */
#define PB_GROUPED_EFF 0.85
/* Token permutation is a row gather / scatter by routing index: it
 * reaches a lower share of HBM bandwidth than a streaming kernel.
 * SimuMax's measured bandwidth factors (COMPUTE-AND-OVERLAP.md 3.1):
 * permute 0.50 of peak on B200 (Transformer Engine's fused permute),
 * 0.19 on A100 PCIe, against 0.67 / 0.91 for their default kernels; the
 * fused kernel's 0.50 is used on every GPU. */
#define PB_PERMUTE_HBM 0.50

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

double pb_kern_moe_mlp(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, double T,
                       pb_layer_time_t *o)
{
    double tp = c->tp, h = (double)m->hidden;
    double ffn = (double)(m->moe_ffn ? m->moe_ffn : m->ffn);
    /* router, then the local experts as one grouped GEMM: an EP
     * rank holds the tokens of its expert-TP group (T*etp/tp), the
     * EP group's routed tokens spread over the experts (balanced),
     * experts/ep of them here, each split etp ways */
    double E = (double)m->experts, k = (double)m->topk, etp = c->etp;
    pb_kern_add_lin(o, pb_kern_linear(hw, T, E, h, 1.0, 1.0));
    double per_expert = T * etp / tp * c->ep * k / E, local = E / c->ep;
    double e_up = (m->gated ? 2.0 : 1.0) * ffn / etp;
    pb_kern_add_lin(o, pb_kern_linear(hw, per_expert, e_up, h, local, PB_GROUPED_EFF));
    pb_kern_add_lin(o, pb_kern_linear(hw, per_expert, h, ffn / etp, local, PB_GROUPED_EFF));
    double act_elems = T * k * ffn / tp;
    /* permute and unpermute, forward and backward: each pass reads
     * and writes every routed copy's h bf16 values (pb_moe_permute_s) */
    double perm = pb_moe_permute_s(hw, T * k / (c->sp ? tp : 1.0) * h,
                                   pb_moe_permute_passes(c->disp, (int)local));
    o->fwd += perm;
    o->bwd += perm;
    return act_elems;
}

/* pb_kernels.h - compute time of a transformer layer, kernel by kernel.
 *
 * One GPU's share of one micro-batch: the layer's GEMMs with the shapes
 * left after the TP (and SP, CP) split, timed by a GEMM efficiency
 * function of (M, N, K) and the GPU (pb_gemm_s); the attention core
 * either fused (flash: a per-GPU attention rate) or materialised (two
 * batched GEMMs plus a memory-bound softmax and dropout over the s^2
 * scores); and the memory-bound kernels (norms, activation, dropout +
 * residual, rotary, MoE permutation) as bytes / (HBM bandwidth x
 * efficiency).  Backward is the dgrad and wgrad GEMMs, the attention
 * backward and the memory-bound backward passes; recomputation adds the
 * forward again (full) or the attention core's forward (selective). */
#ifndef PB_KERNELS_H
#define PB_KERNELS_H

#include <stdint.h>

#include "../patterns/pb_model.h"
#include "pb_flops.h"
#include "pb_ep_cost.h"
#include "pb_gemm_rate.h"
#include "pb_framework.h"
#include "pb_hw.h"
#include "pb_moe.h"

typedef struct pb_kern_cfg {
    int tp, cp, sp, ep, etp; /* etp: the experts' tensor parallelism */
    int flash, causal;
    pb_recomp_t recomp;
    pb_ep_disp_t disp; /* resolved: alltoall or flex (its permutes differ) */
    /* MoE: the busiest EP rank's routed tokens / the mean (pb_moe.h:
     * pb_moe_imbalance); 0 = PB_MOE_IMBALANCE */
    double moe_imb;
    pb_fw_t fw; /* the stack: its memory-bound kernels and FP8 recipe */
    int fp8;    /* linear layers' GEMMs in fp8 (Transformer Engine) */
    pb_fp8_recipe_t fp8_recipe; /* their scaling (pb_framework.h) */
    uint64_t layers; /* the model's, for layer:N's share */
} pb_kern_cfg_t;

/* seconds on one GPU, one micro-batch of one layer */
typedef struct pb_layer_time {
    double fwd;     /* forward pass */
    double bwd;     /* backward pass, recomputation excluded */
    double recomp;  /* forward work repeated in the backward pass */
    double attn;    /* attention core, forward + backward: CP's ring hides in it */
    double wgrad;   /* weight-gradient GEMMs: TP's backward collectives hide in them */
    double once;    /* per step, not per micro-batch: fp8 weight casts cached for the step */
} pb_layer_time_t;


/* Bytes one micro-batch's Transformer Engine casts move for a linear
 * layer of x[M,K] w[K,N] on Hopper (separate transposed copies for
 * wgrad and dgrad): the input (norm_fed: written by the fused norm, with
 * Ms of its rows on this GPU), the weight, the output gradient; and the
 * kernels.  pb_kernels.c derives each from TE's code. */
typedef struct pb_fp8_cast {
    double in_fwd, w, grad_bwd; /* bytes */
    double k_fwd, k_w, k_bwd;   /* kernels */
} pb_fp8_cast_t;
pb_fp8_cast_t pb_fp8_cast_bytes(const pb_fw_fp8_t *r, double M, double Ms, double N, double K,
                                int norm_fed);
/* the fp8 gradient GEMMs' share of the fp8 rate: full-precision
 * accumulation (pb_kernels.c, PB_FP8_SPLIT_ACC) */
double pb_fp8_split_acc(void);
/* What torchao's rowwise recipe adds to those (pb_kernels.c: its casts'
 * extra pass, the backward GEMMs' scaling passes) */
void pb_fp8_rowwise_extra(pb_fp8_cast_t *k, double M, double N, double K);

/* seconds to move `bytes` through HBM in a memory-bound kernel */
double pb_membound_s(const pb_hw_t *hw, double bytes);

/* Permute passes of an MoE layer (each a permute before the experts and
 * its unpermute after): alltoall 1 global + 1 local (none with one
 * local expert), flex (DeepEP) 1 local. */
int pb_moe_permute_passes(pb_ep_disp_t disp, int local_experts);
/* seconds for `passes` permute + unpermute pairs over copies_x_h routed
 * token values (bf16), one direction (forward or backward) */
double pb_moe_permute_s(const pb_hw_t *hw, double copies_x_h, int passes);

/* forward + dgrad + wgrad of a linear layer y[M,N] = x[M,K] w[K,N] */
typedef struct pb_lin {
    double fwd, dgrad, wgrad;
} pb_lin_t;
/* `batch` such GEMMs at `eff` of the dense-GEMM rate (1: dense) */
pb_lin_t pb_kern_linear(const pb_hw_t *hw, double M, double N, double K, double batch,
                        double eff);
/* the same linear layer as configured: fp8 GEMMs when c->fp8 */
pb_lin_t pb_kern_linear_c(const pb_hw_t *hw, const pb_kern_cfg_t *c, double M, double N,
                          double K, double batch, double eff);
/* adds a linear layer's passes to a layer's times (wgrad counted apart) */
void pb_kern_add_lin(pb_layer_time_t *o, pb_lin_t l);

/* seconds of one grouped expert GEMM pass: `groups` experts of m tokens,
 * N x K each (pb_kern_moe.c: the dense efficiency at m x groups rows,
 * times pb_moe_grouped_eff(m), never under the HBM floor of every
 * expert's weights) */
double pb_moe_grouped_s(const pb_hw_t *hw, double m, double N, double K, double groups);

/* The MLP of an MoE layer for T tokens of this TP group (pb_kern_moe.c):
 * router, the shared experts (a dense MLP of shared_ffn, TP-split), the
 * busiest EP rank's grouped expert GEMMs and token permutes (imbalance x
 * the mean's, pb_moe.h), added to *o; returns the activation's elements
 * (for its memory-bound kernel). */
double pb_kern_moe_mlp(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, double T,
                       pb_layer_time_t *o);

void pb_kern_layer(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, int moe,
                   pb_layer_time_t *out);
/* the output layer and loss (last stage), and the embedding (first) */
void pb_kern_logits(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                    pb_layer_time_t *out);
void pb_kern_embed(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                   pb_layer_time_t *out);

#endif

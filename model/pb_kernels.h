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
#include "pb_gemm.h"
#include "pb_hw.h"

typedef struct pb_kern_cfg {
    int tp, cp, sp, ep, etp; /* etp: the experts' tensor parallelism */
    int flash, causal;
    pb_recomp_t recomp;
    pb_ep_disp_t disp; /* resolved: alltoall or flex (its permutes differ) */
} pb_kern_cfg_t;

/* seconds on one GPU, one micro-batch of one layer */
typedef struct pb_layer_time {
    double fwd;     /* forward pass */
    double bwd;     /* backward pass, recomputation excluded */
    double recomp;  /* forward work repeated in the backward pass */
    double attn;    /* attention core, forward + backward: CP's ring hides in it */
    double wgrad;   /* weight-gradient GEMMs: TP's backward collectives hide in them */
} pb_layer_time_t;

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
/* adds a linear layer's passes to a layer's times (wgrad counted apart) */
void pb_kern_add_lin(pb_layer_time_t *o, pb_lin_t l);

/* The MLP of an MoE layer for T tokens of this TP group (pb_kern_moe.c):
 * router, grouped expert GEMMs and the token permutes, added to *o;
 * returns the activation's elements (for its memory-bound kernel). */
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

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

/* Fraction of the dense bf16 peak a GEMM of M x N x K reaches on `hw`:
 * the preset's best-shape share, a loss for each short dimension
 * (d / (d + 192): prologue, epilogue and operand reuse of narrow tiles;
 * M only from 256 up, below which the HBM floor rules)
 * and wave quantization over the SMs. */
double pb_gemm_eff(const pb_hw_t *hw, double M, double N, double K);
/* seconds for `batch` GEMMs of M x N x K: the FLOPs at that efficiency,
 * never faster than their operands' bytes through HBM */
double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch);
/* seconds to move `bytes` through HBM in a memory-bound kernel */
double pb_membound_s(const pb_hw_t *hw, double bytes);

/* Permute passes of an MoE layer (each a permute before the experts and
 * its unpermute after): alltoall 1 global + 1 local (none with one
 * local expert), flex (DeepEP) 1 local. */
int pb_moe_permute_passes(pb_ep_disp_t disp, int local_experts);
/* seconds for `passes` permute + unpermute pairs over copies_x_h routed
 * token values (bf16), one direction (forward or backward) */
double pb_moe_permute_s(const pb_hw_t *hw, double copies_x_h, int passes);

void pb_kern_layer(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c, int moe,
                   pb_layer_time_t *out);
/* the output layer and loss (last stage), and the embedding (first) */
void pb_kern_logits(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                    pb_layer_time_t *out);
void pb_kern_embed(const pb_model_t *m, const pb_hw_t *hw, const pb_kern_cfg_t *c,
                   pb_layer_time_t *out);

#endif

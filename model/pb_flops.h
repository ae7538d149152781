/* pb_flops.h - floating-point operations of a training step.
 *
 * A layer's forward on T = b*s tokens: 2*T per matrix weight (Q, K, V, O;
 * the MLP's two or three matrices; in an MoE layer the top-k experts' and
 * the router's), plus attention scores and their use on V, 2*b*s^2*h each
 * (half of each with --causal, the masked half skipped as FlashAttention
 * does).  Logits: 2*T*h*V.  Backward is twice the forward.  For GPT-3
 * shaped models this is Narayanan et al. 2021's count, 72*B*s*l*h^2*
 * (1 + s/6h + V/12lh) per step (model FLOPs); full recomputation adds one
 * more forward of every layer (their 96*B*s*l*h^2*(1 + s/6h + V/16lh)),
 * selective recomputation (Korthikanti et al. 2022) only the attention
 * score part, 4*b*s^2*h per layer.  torchtitan's selective modes: layer:N
 * wraps every N-th block in a full checkpoint (floor(L/N) of L layers
 * repeat their forward), op saves the outputs of the matmuls, attention
 * and reduce-scatters except every second matmul of a block, so its
 * backward repeats the memory-bound ops and the K projection, the
 * attention output projection and the up (plain MLP: down) projection
 * (doc/MODEL.md, "Stacks and FP8"). */
#ifndef PB_FLOPS_H
#define PB_FLOPS_H

#include <stdint.h>

#include "../patterns/pb_model.h"

/* layer:N is PB_RECOMP_LAYER + N (N >= 1), so a recomputation mode stays
 * one value wherever it travels (runs file, plan, FLOPs convention). */
typedef enum pb_recomp {
    PB_RECOMP_NONE,
    PB_RECOMP_SELECTIVE,
    PB_RECOMP_FULL,
    PB_RECOMP_OP,
    PB_RECOMP_LAYER = 64
} pb_recomp_t;
#define PB_RECOMP_LAYER_MAX 65536

/* FLOP conventions (Narayanan et al. 2021, "Efficient Large-Scale
 * Language Model Training on GPU Clusters Using Megatron-LM", Appendix:
 * a multiply-add is 2 FLOPs): attention's two score products Q.K^T and
 * P.V, 2 x 2 b s^2 (heads x head_dim) FLOPs forward; a backward pass
 * computes the input and the weight gradients, each the forward's FLOPs,
 * so training is 3 x the forward. */
#define PB_FLOPS_ATTN_SCORE 4.0
#define PB_FLOPS_TRAIN_X_FWD 3.0

/* "none", "selective", "full", "op"; "layer" for layer:N (pb_recomp_format
 * writes the N) */
const char *pb_recomp_name(pb_recomp_t r);
void pb_recomp_format(pb_recomp_t r, char *buf, unsigned long len);
/* none, selective, full, op or layer:N (1 <= N <= PB_RECOMP_LAYER_MAX);
 * 0 ok, -1 unknown */
int pb_recomp_parse(const char *s, pb_recomp_t *out);
/* layer:N for N >= 1 */
pb_recomp_t pb_recomp_layer_of(int n);
/* N of layer:N, else 0 */
int pb_recomp_every(pb_recomp_t r);
/* Share of a model's `layers` that repeat their whole forward: 1 full,
 * floor(L/N)/L for layer:N (torchtitan counts blocks from 1 and wraps
 * those with count % N == 0), 0 otherwise. */
double pb_recomp_full_share(pb_recomp_t r, uint64_t layers);

/* Forward FLOPs of one layer (moe: an MoE layer) for b sequences of s. */
double pb_flops_layer_fwd(const pb_model_t *m, uint64_t b, uint64_t s, int moe, int causal);
/* The attention-score part of it (what selective recomputation repeats). */
double pb_flops_attn_core_fwd(const pb_model_t *m, uint64_t b, uint64_t s, int causal);
double pb_flops_logits_fwd(const pb_model_t *m, uint64_t b, uint64_t s);
/* Extra forward FLOPs recomputation adds to one layer's backward. */
double pb_flops_recompute(const pb_model_t *m, uint64_t b, uint64_t s, int moe, int causal,
                          pb_recomp_t r);

typedef struct pb_flops_step {
    double model; /* 3 x forward: what the model needs (MFU) */
    double hw;    /* plus recomputation: what the GPUs execute (HFU) */
} pb_flops_step_t;

/* One step of `batch` sequences (the global batch), all GPUs together. */
pb_flops_step_t pb_flops_step(const pb_model_t *m, uint64_t batch, int causal, pb_recomp_t r);

#endif

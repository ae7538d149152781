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
 * score part, 4*b*s^2*h per layer. */
#ifndef PB_FLOPS_H
#define PB_FLOPS_H

#include <stdint.h>

#include "../patterns/pb_model.h"

typedef enum pb_recomp { PB_RECOMP_NONE, PB_RECOMP_SELECTIVE, PB_RECOMP_FULL } pb_recomp_t;

const char *pb_recomp_name(pb_recomp_t r);
int pb_recomp_parse(const char *s, pb_recomp_t *out); /* 0 ok, -1 unknown */

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

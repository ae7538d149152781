/* pb_memory.h - bytes per GPU: weights, gradients, optimizer state and
 * activations, against the GPU's capacity.
 *
 * Weights, gradients, optimizer (mixed precision Adam, bytes per
 * parameter): bf16 parameters 2, fp32 gradients 4 (Megatron accumulates
 * in fp32), fp32 master weights, momentum and variance 12: 18 in all.
 * Sharded over d = dp*cp data-parallel ranks: ZeRO-1 / distributed
 * optimizer 6 + 12/d, ZeRO-2 2 + 16/d, ZeRO-3 18/d.  The parameters are
 * those of the busiest pipeline stage divided by tp (expert weights by
 * tp*ep): its layers, and the input embedding on the first stage, the
 * output layer and final norm on the last (both when pp = 1).
 *
 * Activations per layer per micro-batch (Korthikanti et al. 2022, Sec. 4,
 * bytes, with s the sequence on one CP rank, t = tp, a heads):
 *   no parallelism            s*b*h*(34 + 5*a*s/h)
 *   tensor parallel           s*b*h*(10 + 24/t + 5*a*s/(h*t))
 *   tensor + sequence par.    s*b*h*(34/t + 5*a*s/(h*t))
 *   selective recomputation
 *   or flash attention        the 5*a*s/h term is gone
 *   full recomputation        2*s*b*h (2*s*b*h/t with SP): the layer input
 * 34 = attention 11 + MLP 19 + norms 4 for a GPT layer; GQA shrinks K and
 * V (7 + 4*kv/a), an MLP of f wide takes 3 + 4*f/h (x 1.5 gated: gate,
 * up and their product); 10 of the 34 are replicated without SP.  MoE
 * layers keep topk tokens' MLP activations.
 * The first stage holds min(p, m) micro-batches in flight under 1F1B
 * (x (1 + (p-1)/(p*v)) interleaved), each its stage's layers; plus the
 * embedding's dropout mask s*b*h per micro-batch in flight (/t with SP)
 * and, when pp = 1, the output layer and loss 4*s*b*h*(1 + V/h)/t.
 * torchtitan's selective modes: layer:N keeps full recomputation's
 * 2*s*b*h in floor(L/N) of L layers and everything in the rest; op keeps
 * the block input and the outputs it saves (pb_mem_act_layer).  FP8
 * (Transformer Engine): the linear layers keep their inputs in fp8, 1 B
 * where bf16 kept 2, and with the weights cached for the step their fp8
 * copy and its transpose, 2 B per linear weight. */
#ifndef PB_MEMORY_H
#define PB_MEMORY_H

#include <stdint.h>

#include "../patterns/pb_layout.h"
#include "../patterns/pb_model.h"
#include "pb_flops.h"

#define PB_GIB (1024.0 * 1024.0 * 1024.0)

typedef struct pb_mem_cfg {
    pb_recomp_t recomp;
    int flash; /* flash attention: no s^2 activations */
    int zero;  /* 0..3 */
} pb_mem_cfg_t;

typedef struct pb_mem {
    double params;     /* parameters on the busiest GPU (count) */
    double weights;    /* bytes: parameters + gradients + optimizer */
    double act_layer;  /* bytes, one layer, one micro-batch */
    double act_layers; /* bytes, every layer of the in-flight micro-batches */
    double act_extra;  /* bytes, embedding and output layer */
    double inflight;   /* micro-batches in flight on the first stage */
    double total;      /* bytes */
} pb_mem_t;

/* bytes per parameter for ZeRO stage `zero` over d ranks */
double pb_mem_bytes_per_param(int zero, int d);

double pb_mem_act_layer(const pb_model_t *m, const pb_layout_t *l, int moe, pb_recomp_t r,
                        int flash);

/* bytes one layer keeps fewer (negative: more) when its linear layers run
 * in fp8: their inputs in 1 B (QKV's and FC1's, the norms' outputs, and
 * FC2's); with flash attention the output projection's fp8 input is a
 * copy beside the bf16 output the attention kernel keeps */
double pb_mem_act_fp8_saving(const pb_model_t *m, const pb_layout_t *l, int moe, int flash);

void pb_memory(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, pb_mem_t *out);
/* the same with the linear layers in fp8 (fp8), their weights' fp8
 * copies kept for the step (weight_cache) */
void pb_memory_fp8(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, int fp8,
                   int weight_cache, pb_mem_t *out);

#endif

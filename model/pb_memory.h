/* pb_memory.h - bytes per GPU on every pipeline stage, term by term, and
 * the peak: the busiest stage.
 *
 * Each stage s of pp (its layers from patterns/pb_stages.h, vp chunks
 * each with interleaving) holds, per GPU:
 *
 *   params, grads, optim  its parameters (layers / tp, an MoE layer's
 *       experts / (etp*ep); the input embedding on the first stage, the
 *       output layer and final norm on the last) in the resident type
 *       (2 B, 4 with fp32 parameters), the main gradients (4 B fp32 or
 *       2 B) and Adam (fp32 master 4 unless the parameters are fp32,
 *       moments 8).  ZeRO-1 (the distributed optimizer) divides the
 *       optimizer, ZeRO-2 the gradients too, ZeRO-3 everything, over the
 *       data-parallel group: d = dp*cp for dense parameters, the expert-
 *       data-parallel group dp*cp*tp/(ep*etp) for experts (Megatron-Core
 *       parallel_state: expert_data_parallel = world / (pp*ep*etp)).  A
 *       stack whose ZeRO-3 shard is the fp32 master itself (FSDP) keeps
 *       4 + 4 + 8 B over d (pb_framework.h, shard_master).
 *   gathered  what ZeRO-3 holds unsharded: `gathered` layers' parameters
 *       in the compute type and one layer's gradient before its
 *       reduce-scatter; with a stack that keeps a pipeline stage gathered
 *       (torchtitan) the whole stage's parameters and its unsharded
 *       gradients; with one that skips the reduce-scatter while
 *       accumulating, the stage's unsharded gradient; and FP8's cached
 *       weight copies.
 *   act  the activations of the micro-batches in flight, each the
 *       stage's layers: min(pp - s, m) under 1F1B; interleaved, Megatron's
 *       warm-up of (pp - s - 1)*2 + (vp - 1)*pp chunk micro-batches plus
 *       the one in its steady state, each layers/vp (schedules.py), which
 *       on the first stage is Korthikanti et al. 2022's
 *       pp*(1 + (pp-1)/(pp*vp)).  Per layer, Korthikanti et al. 2022
 *       Sec. 4 (pb_mem_act_layer).
 *   recomp  with full or per-layer recomputation, the layer being
 *       recomputed for its backward holds its full activations beside
 *       the checkpoints (one layer: Megatron's uniform method with
 *       --recompute-num-layers 1, torchtitan's per-block checkpoints).
 *   embed  the first stage: the embedding's output of each micro-batch in
 *       flight (/tp with SP).
 *   loss  the last stage, one micro-batch: the final norm's input and
 *       output (4 s b h, /tp with SP) and the logits, s b vocab/tp of
 *       them, each taking the stack's loss_bytes at the loss's peak.
 *
 * The sum is what the allocator hands out at the peak (allocated);
 * pb_mem_cap turns it into what it reserves and compares that with what
 * the device leaves (pb_mem_cap.h). */
#ifndef PB_MEMORY_H
#define PB_MEMORY_H

#include <stdint.h>

#include "../patterns/pb_layout.h"
#include "../patterns/pb_model.h"
#include "pb_flops.h"
#include "pb_framework.h"

#define PB_GIB (1024.0 * 1024.0 * 1024.0)
/* an fp32 value's bytes: parameters, master weights, moments */
#define PB_MEM_FP32_B 4

typedef enum pb_mem_term {
    PB_MEM_PARAMS,
    PB_MEM_GRADS,
    PB_MEM_OPTIM,
    PB_MEM_GATHERED,
    PB_MEM_ACT,
    PB_MEM_RECOMP,
    PB_MEM_EMBED,
    PB_MEM_LOSS,
    PB_MEM_TERMS
} pb_mem_term_t;

/* "params", "grads", "optimizer", "gathered", "activations",
 * "recompute", "embedding", "loss" */
const char *pb_mem_term_name(int t);

typedef struct pb_mem_cfg {
    pb_recomp_t recomp;
    int flash;        /* flash attention: no s^2 activations */
    int zero;         /* 0..3 */
    int fp8;          /* TE FP8 linear layers */
    int param_bytes;  /* resident parameters: 2 (16-bit) or 4 (fp32); 0: 2 */
    int grad_bytes;   /* main gradients: 4 or 2; 0: the stack's */
    int optim_bytes;  /* Adam's moments and master: 4 (fp32) or 2 (bf16: "pure
                       * bf16", no master kept); 0: 4 */
    double loss_bytes; /* per logit at the loss's peak; < 0 or 0 with loss_set 0: the stack's */
    int loss_set;
    int fsdp2;        /* ZeRO-3 as FSDP2 runs it (--fsdp2): the fp32 shard is
                       * the master */
    uint64_t micro;   /* micro-batches per step; 0: from the model and layout */
    pb_fw_t framework;
    int dualpipe;     /* DualPipe: stages s and pp-1-s on a rank, pp+1 in flight */
} pb_mem_cfg_t;

/* One stage's bytes on one of its GPUs. */
typedef struct pb_mem_stage {
    int stage;
    uint64_t layers;
    double params;   /* parameters (count) before any ZeRO sharding */
    double inflight; /* micro-batches whose activations it holds, each its layers */
    double term[PB_MEM_TERMS];
    double total;
} pb_mem_stage_t;

typedef struct pb_mem {
    pb_mem_stage_t busiest; /* the stage with the most bytes (the first of equals) */
    int stages;
    /* the busiest stage's figures, as the step model and the reports read them */
    double params;     /* its parameters (count) */
    double params_max; /* the most parameters any stage holds (the step's
                        * optimizer and gradient passes wait for it) */
    double weights;    /* bytes: params + grads + optimizer + gathered */
    double act_layer;  /* bytes, one dense layer, one micro-batch */
    double act_layers; /* bytes: act + recomp */
    double act_extra;  /* bytes: embed + loss */
    double inflight;
    double total; /* bytes allocated at the peak */
} pb_mem_t;

double pb_mem_act_layer(const pb_model_t *m, const pb_layout_t *l, int moe, pb_recomp_t r,
                        int flash);

/* bytes one layer keeps fewer (negative: more) when its linear layers run
 * in fp8: their inputs in 1 B (QKV's and FC1's, the norms' outputs, and
 * FC2's); with flash attention the output projection's fp8 input is a
 * copy beside the bf16 output the attention kernel keeps */
double pb_mem_act_fp8_saving(const pb_model_t *m, const pb_layout_t *l, int moe, int flash);

/* Chunk micro-batches stage s holds in flight, in units of the whole
 * stage (a chunk is 1/vp of it): min(pp - s, m) for 1F1B, Megatron's
 * interleaved warm-up + 1 chunks / vp; 1 without a pipeline. */
double pb_mem_inflight(int pp, int vp, int s, uint64_t micro);

/* Stage s (0 <= s < pp) of a layout pb_layout_check accepted. */
void pb_memory_stage(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, int s,
                     pb_mem_stage_t *out);

/* Every stage; out has the busiest. */
void pb_memory(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, pb_mem_t *out);

#endif

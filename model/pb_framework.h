/* pb_framework.h - the training stacks the step model knows, one
 * descriptor each: the memory-bound kernels a layer runs (fused by
 * Megatron's and Transformer Engine's kernels, by torch.compile, or
 * unfused eager PyTorch ops), the stack's default overlaps, its gradient
 * accumulation, its pipeline engine's per-micro-batch work and its FP8
 * recipe (its traffic: patterns/pb_fw_traffic.h).  Every number's source is in pb_framework.c and doc/MODEL.md
 * ("Stacks and FP8"). */
#ifndef PB_FRAMEWORK_H
#define PB_FRAMEWORK_H

/* the stacks themselves, and what they do to the traffic */
#include "../patterns/pb_fw_traffic.h"

/* One kind of memory-bound kernel of a layer: bytes moved per element it
 * runs over, and kernels launched, forward (f) and backward (b). */
typedef struct pb_fw_kern {
    double fb, bb;
    double kf, kb;
} pb_fw_kern_t;

/* Transformer Engine's FP8 recipe as the stack runs it (pb_kernels.c) */
typedef struct pb_fw_fp8 {
    int weight_cached; /* weights cast once per step (is_first_microbatch), else every micro-batch */
    int norm_fused;    /* the norm writes the fp8 input of QKV and FC1 itself */
    int current;       /* current (per-tensor, just-in-time) scaling: an amax pass before each cast */
    int param;         /* the weights kept in fp8 (fp8_param_gather): 1 B, the bf16 copy gone */
} pb_fw_fp8_t;
/* How the FP8 linear layers scale their operands (pb_kernels.c): one scale
 * per tensor (Transformer Engine's delayed and current scaling, torchao's
 * `tensorwise`), or one per row (torchao's `rowwise`: more cast passes,
 * and its backward GEMMs scaled after the GEMM in a pass of their own). */
typedef enum pb_fp8_recipe { PB_FP8_TENSORWISE, PB_FP8_ROWWISE } pb_fp8_recipe_t;

/* What the stack keeps in memory beyond the model's own tensors
 * (pb_memory.c reads it; pb_framework.c names each number's source). */
typedef struct pb_fw_mem {
    /* bytes per logit (token x vocab/tp) the loss keeps live at its
     * peak on the last stage, beside the output layer's 16-bit logits */
    double loss_bytes;
    /* the main gradients' bytes unless --grad-dtype says: 4 fp32, 2 bf16 */
    int grad_bytes;
    /* ZeRO-3: the sharded parameter is the fp32 master itself (FSDP's
     * flat or DTensor parameter): 4 + 4 + 8 bytes over d, no 16-bit
     * copy beside it; 0: a 16-bit shard beside an fp32 master */
    int shard_master;
    /* ZeRO-3: layers whose gathered parameters are live at once (the
     * one computing and the one prefetched) */
    int gathered;
    /* bytes per parameter of the unsharded gradient a stack keeps
     * between micro-batches when it skips the reduce-scatter while
     * accumulating (0: it reduce-scatters every micro-batch) */
    int accum_unsharded;
    /* with a pipeline: the stage's parameters stay gathered after the
     * forward and its gradients accumulate unsharded in the reduce type */
    int pp_keep_gathered;
    /* the caching allocator's reserve over its peak allocation
     * (reserved / allocated - 1), measured on the stack's runs */
    double alloc_frag;
    /* bytes of the gradient bucket the stack reduces from with ZeRO-2
     * and -3, beside the model's own buffers */
    double zero_bucket;
} pb_fw_mem_t;

typedef struct pb_fw_desc {
    const char *name;
    /* per norm on the norm's tokens x hidden: RMSNorm (gated, Llama-style
     * models) or LayerNorm (plain); per residual branch on the same;
     * the activation per MLP inner element (SwiGLU or GeLU); rotary per
     * element of one of q and k (gated models), kernels per tensor */
    pb_fw_kern_t rmsnorm, layernorm, resid, swiglu, gelu, rope;
    /* 1: every kernel pays the launch floor PB_KERNEL_US (per-op
     * dispatch the CPU cannot run ahead of); 0: one floor per pass */
    int floor_per_kernel;
    /* defaults of pb_step_cfg_t */
    int overlap_grad, overlap_tp_bwd, overlap_p2p, grad_accum_fused, zero3_copies;
    double tp_overlap; /* fraction of the TP collectives hidden (1: on) */
    /* bytes per parameter an unfused accumulation moves beyond the fused
     * add of pb_step_accum_s (DeepSpeed casts the gradient to fp32 first) */
    double accum_extra_bytes;
    /* DeepSpeed's PipelineEngine: each micro-batch copies the activations
     * it receives and sends, and regathers its output over TP before the
     * backward (pb_step.c) */
    int ds_pipe;
    pb_fw_fp8_t fp8;
    pb_fw_mem_t mem;
    /* the fused attention kernel: 1 FlashAttention-2 (pb_hw_t
     * attn_fa2_tflops), 0 the vendor's (cuDNN through Transformer Engine
     * or XLA: attn_tflops) */
    int attn_fa2;
} pb_fw_desc_t;

const pb_fw_desc_t *pb_fw_desc(pb_fw_t fw);
const char *pb_fw_name(pb_fw_t fw);
/* 0 ok, -1 unknown */
int pb_fw_parse(const char *s, pb_fw_t *out);
/* "megatron, nemo, deepspeed, fsdp, torchtitan, maxtext" for messages */
const char *pb_fw_names(void);

#endif

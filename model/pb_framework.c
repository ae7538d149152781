#include "pb_framework.h"

#include <string.h>

/* Megatron-Core's fused kernels (TE's RMSNorm/LayerNorm, fused bias-
 * dropout-add, bias-SwiGLU / bias-GeLU, fused RoPE): bytes per element as
 * the model has charged them since issue 20 (doc/MODEL.md, "Memory-bound
 * kernels": a norm reads and writes bf16, 4 B, its backward reads the
 * gradient and input and writes one, 6 B; bias-dropout-add reads two
 * tensors and writes one and a 1 B mask, 7 B, backward 5 B; SwiGLU reads
 * gate and up and writes one, 6 B, backward 10 B; GeLU 4 / 6; RoPE 4 / 4).
 * One launch floor per pass: the CPU queues these kernels ahead of the
 * GEMMs they sit between (CUDA_DEVICE_MAX_CONNECTIONS=1 keeps their
 * order), so no launch shows but the pass's tail. */
#define PB_FW_MEGATRON_KERNELS                                                                    \
    {4.0, 6.0, 1.0, 1.0}, {4.0, 6.0, 1.0, 1.0}, {7.0, 5.0, 1.0, 1.0}, {6.0, 10.0, 1.0, 1.0},     \
        {4.0, 6.0, 1.0, 1.0}, {4.0, 4.0, 1.0, 1.0}, 0

/* Compiled graphs (torch.compile's inductor, XLA): the pointwise work
 * between matmuls fused (torchtitan's and maxtext's rows below say why
 * each byte): RMSNorm 4 / 6 B in 1 / 2 kernels, LayerNorm likewise, a
 * residual 5 / 2 B in half a kernel / none, SwiGLU 6 / 10, GeLU 4 / 6,
 * rotary 4 / 4, one kernel each way. */
#define PB_FW_COMPILED_KERNELS                                                                   \
    {4.0, 6.0, 1.0, 2.0}, {4.0, 6.0, 1.0, 2.0}, {5.0, 2.0, 0.5, 0.0}, {6.0, 10.0, 1.0, 1.0},     \
        {4.0, 6.0, 1.0, 1.0}, {4.0, 4.0, 1.0, 1.0}

/* Memory (pb_fw_mem_t): Megatron-Core's vocab-parallel cross-entropy
 * (megatron/core/tensor_parallel/cross_entropy.py: the logits made fp32
 * and exponentiated, normalised and turned into their gradient in place,
 * saved for the backward: 4 B a logit beside the output layer's 2 B);
 * fp32 main gradients (arguments.py: accumulate_allreduce_grads_in_fp32
 * with --bf16 unless --grad-reduce-in-bf16); its ZeRO-3 (Megatron FSDP)
 * a 16-bit shard beside the distributed optimizer's fp32 master, two
 * layers gathered, a reduce-scatter every micro-batch. */
#define PB_FW_MEGATRON_MEM {6.0, 4, 0, 2, 0, 0, 0.06, 0.0}

/* The table: one row per stack.  Sources (doc/MODEL.md, "Stacks and FP8"):
 *
 * megatron: Megatron-LM arguments.py defaults - --overlap-grad-reduce,
 *   async TP backward, --overlap-p2p-communication with interleaving,
 *   --gradient-accumulation-fusion on; --tp-comm-overlap off.  TE FP8
 *   (DelayedScaling, the TE default recipe): weights cast and transposed on
 *   the first micro-batch and cached (megatron/core/extensions/
 *   transformer_engine.py passes is_first_microbatch; TE module/linear.py
 *   update_ws = is_first_microbatch is None or is_first_microbatch), the
 *   norm writes the fp8 input (TE pytorch/csrc/extensions/normalization.cpp:
 *   Float8Quantizer -> FULLY_FUSED).
 * nemo: Megatron-Core plus NeMo's performance recipes: its fp8 recipes keep
 *   the weights in fp8 (NeMo and Megatron-Bridge bf16_with_fp8_mixed and
 *   bf16_with_fp8_current_scaling_mixed: fp8_param_gather = True);
 *   MegatronCommOverlap
 *   Callback(tp_comm_overlap=True) (NVIDIA/NeMo nemo/collections/llm/
 *   recipes/llama3_70b.py pretrain_performance_optimizations), DDP with
 *   overlap_grad_reduce and overlap_param_gather (same file); fp8 only in
 *   the fp8 recipes (dtype stays an input).
 * deepspeed: Megatron-DeepSpeed runs Megatron's fused kernels; DeepSpeed's
 *   pipeline engine (deepspeed/runtime/pipe/engine.py) reduces gradients
 *   after the last micro-batch (_exec_reduce_grads: no overlap), has no
 *   interleaved schedule (schedule.py TrainSchedule, 1F1B), accumulates
 *   through bf16_optimizer.py update_hp_grads every micro-batch
 *   (hp_grad.add_(lp.grad.to(fp32)): the cast writes and re-reads 4 B
 *   more than a fused add, 8 B extra per parameter), and copies and
 *   regathers its pipeline tensors (pb_step.c, ds_pipe).
 * fsdp: eager Hugging Face modules (transformers models/llama/
 *   modeling_llama.py): LlamaRMSNorm is 8 kernels forward (to(fp32) 6 B,
 *   pow 8, mean 4, +eps and rsqrt per row, x*rsqrt 8, to(bf16) 6,
 *   weight* 4: 36 B per element) and 15 backward (92 B: the autograd
 *   formulas of each); the residual add 6 / 6 B (one add each way);
 *   SwiGLU act_fn(gate)*up: silu 4 + mul 6 = 10 B in 2 kernels, backward
 *   mul's two products 6 + 6 and silu_backward 6 = 18 B in 3; rotary
 *   q*cos + rotate_half(q)*sin: mul 4, neg of a half 2, cat 4, mul 4,
 *   add 6 = 20 B in 5 kernels per tensor, backward 30 B in 8 (two
 *   products, the halves' slice_backward zero-fill and copy, the three
 *   gradients summed); nn.LayerNorm and nn.GELU are single aten kernels
 *   (4 / 6 B).  Each kernel pays the launch floor: FSDP's pre-forward and
 *   pre-backward hooks wait on the all-gather (FSDP1 limit_all_gathers
 *   blocks the CPU on an event per block) so the CPU cannot run ahead of
 *   the GPU.  Gradients accumulate in autograd's AccumulateGrad (u); FSDP1
 *   flat parameters need no copy-out (c off).
 * torchtitan: FSDP2 (copy-in / copy-out: c) and torch.compile per block
 *   (torchtitan/models/llama3/parallelize.py apply_compile): inductor fuses
 *   the pointwise work between matmuls - RMSNorm one kernel 4 B forward,
 *   backward the input-gradient kernel and the weight-gradient reduction
 *   6 B in 2; the attention residual add fused into the MLP norm (4 B
 *   more) and the block's final add alone (6 B): 5 B and half a kernel per
 *   residual; the residual-gradient add fused into the norm backward (one
 *   more read, 2 B); SwiGLU 6 / 10 B in one kernel each way; rotary one
 *   complex-multiply kernel per tensor, 4 / 4 B.  No async TP by default
 *   (tp_overlap 0; the DTensor TP backward collectives run inline: t off).
 *   FP8 through torchao Float8Linear tensorwise scaling: dynamic (current)
 *   scaling, weights cast every micro-batch, no fused norm cast; FSDP eager
 *   runs of FP8 likewise.  Its allocator's reserve (alloc_frag 0.18) is a
 *   compiled run's peak reserved over the peak the model computes, which
 *   is eager's op by op: pytorch/torchtitan PR #165's compiled runs
 *   (28.90 GiB reserved with full, 53.83 with selective recomputation,
 *   inductor's buffer reuse on, its default) over its eager runs' peak
 *   active of the same setup (22.73, 49.54 GiB): 1.271 and 1.087, mean
 *   1.18.
 * maxtext: JAX compiled by XLA.  XLA's GPU fusion merges the pointwise
 *   work between matmuls as inductor does (a norm one fusion, the residual
 *   add into its neighbour), so torchtitan's bytes; XLA runs its fusions
 *   from command buffers (CUDA graphs: openxla/xla xla/debug_options_
 *   flags.cc, xla_gpu_enable_command_buffer's defaults FUSION, CUBLAS,
 *   CUSTOM_CALL), so one launch floor per pass as Megatron's queued
 *   kernels; the latency-hiding scheduler (--xla_gpu_enable_latency_
 *   hiding_scheduler, set by MaxText's GPU recipes) runs the gradient
 *   reduce-scatters and the parameter all-gathers beside compute (g, t,
 *   p); gradient accumulation adds each micro-batch's gradients in a
 *   separate scan step (MaxText train.py gradient_accumulation: u).  FP8
 *   through Flax's fp8 dot_general (flax/linen/fp8_ops.py: delayed scaling
 *   with an amax history, weights and inputs cast at every call, no norm
 *   fusion). */
/* The attention kernel (attn_fa2).  Megatron and NeMo run Transformer
 * Engine's DotProductAttention, cuDNN's fused attention on Hopper and
 * Blackwell (TE's default backend there; on Ampere TE runs flash-attn 2,
 * the same kernel the A100 preset's rate is); MaxText's GPU recipes set
 * attention: cudnn_flash_te.  The PyTorch-native stacks run
 * FlashAttention-2: llm-foundry's MPT attn_impl flash (the flash-attn 2
 * package), FMS and torchtitan PyTorch's scaled_dot_product_attention,
 * whose flash backend is FlashAttention-2 and comes first in its default
 * order on H100 - cuDNN's backend was made the default there for PyTorch
 * 2.5.0 only (pytorch/pytorch#125343, made opt-in again by #138522) until
 * PyTorch 2.10 prefers it with cuDNN 9.15 or newer
 * (sdp_utils.cpp check_prefer_cudnn_attention); tritonbench on an H100
 * with a December 2024 nightly: SDPA 329 TFLOP/s forward, cuDNN 631
 * (pytorch/pytorch#142132).  Megatron-DeepSpeed: --use-flash-attn-v2.
 * A run on a PyTorch that prefers cuDNN: --hw-set
 * attn_fa2_tflops=<attn_tflops>. */
static const pb_fw_desc_t fw_table[PB_FW_COUNT] = {
    [PB_FW_MEGATRON] = {"megatron", PB_FW_MEGATRON_KERNELS, 1, 1, 1, 1, 0, 0.0, 0.0, 0,
                        {1, 1, 0, 0}, PB_FW_MEGATRON_MEM, 0},
    [PB_FW_NEMO] = {"nemo", PB_FW_MEGATRON_KERNELS, 1, 1, 1, 1, 0, 1.0, 0.0, 0,
                    {1, 1, 0, 1}, PB_FW_MEGATRON_MEM, 0},
    [PB_FW_DEEPSPEED] = {"deepspeed", PB_FW_MEGATRON_KERNELS, 0, 1, 0, 0, 0, 0.0, 8.0, 1,
                         {1, 1, 0, 0}, {6.0, 2, 0, 2, 0, 0, 0.48, 1e9}, 1},
    [PB_FW_FSDP] = {"fsdp",
                    {36.0, 92.0, 8.0, 15.0},
                    {4.0, 6.0, 1.0, 2.0},
                    {6.0, 6.0, 1.0, 1.0},
                    {10.0, 18.0, 2.0, 3.0},
                    {4.0, 6.0, 1.0, 1.0},
                    {20.0, 30.0, 5.0, 8.0},
                    1, 1, 0, 0, 0, 0, 0.0, 0.0, 0,
                    {0, 0, 1, 0},
                    {16.0, 4, 1, 2, 0, 0, 0.36, 0.0},
                    1},
    [PB_FW_TORCHTITAN] = {"torchtitan", PB_FW_COMPILED_KERNELS, 1, 1, 0, 1, 0, 1, 0.0, 0.0, 0,
                          {0, 0, 1, 0}, {4.0, 4, 1, 2, 0, 1, 0.18, 0.0}, 1},
    [PB_FW_MAXTEXT] = {"maxtext", PB_FW_COMPILED_KERNELS, 0, 1, 1, 1, 0, 0, 0.0, 0.0, 0,
                       {0, 0, 0, 0}, {6.0, 4, 1, 2, 0, 0, 0.20, 0.0}, 0},
};

const pb_fw_desc_t *pb_fw_desc(pb_fw_t fw)
{
    return &fw_table[fw >= 0 && fw < PB_FW_COUNT ? fw : PB_FW_MEGATRON];
}

const char *pb_fw_name(pb_fw_t fw)
{
    return pb_fw_desc(fw)->name;
}

int pb_fw_parse(const char *s, pb_fw_t *out)
{
    for (int i = 0; i < PB_FW_COUNT; i++)
        if (strcmp(s, fw_table[i].name) == 0) {
            *out = (pb_fw_t)i;
            return 0;
        }
    return -1;
}

const char *pb_fw_names(void)
{
    return "megatron, nemo, deepspeed, fsdp, torchtitan, maxtext";
}

/* pb_step.h - the time of one training step of a model on a layout.
 *
 * m = gbs / (mbs*dp) micro-batches run through p pipeline stages (1F1B, or
 * interleaved with v model chunks per stage).  On the busiest stage:
 *   compute  = m x (forward + backward + recomputation FLOPs of its
 *              layers, and the logits on the last stage) / (tp*cp) / rate
 *   TP       = the TP/SP operations of the patterns' op list, each timed by
 *              the collective model, times (1 - tp_overlap): they sit on
 *              the critical path between a block's GEMMs
 *   PP       = the send/recv operations, and without SP the receiver's
 *              all-gather of the scattered tensor over TP; 1F1B's are on
 *              the critical path, interleaved ones with --overlap-p2p
 *              overlap compute (what sticks out is kept)
 *   EP       = the all-to-alls (dispatch and combine wait for each other)
 *   CP       = the K,V ring steps, hidden behind the attention they feed;
 *              the excess is exposed
 *   bubble   = (p-1)/(v*m) x (compute + TP + PP + EP + CP), the pipeline's
 *              fill and drain (Narayanan et al. 2021)
 *   DP       = gradient reduction overlapped with the last micro-batch's
 *              backward: what exceeds it, and at least the last bucket,
 *              is exposed; the distributed optimizer's parameter
 *              all-gather overlaps the next step's first forward likewise;
 *              ZeRO-3's per-layer traffic overlaps its own pass's compute
 *              except each micro-batch's first gather and last scatter
 *              (pb_step_z3_exposed); hidden traffic still slows compute a
 *              little (pb_step_hidden_cost)
 *   accumulate= without gradient-accumulation fusion, each micro-batch's
 *              add of the gradients into the fp32 buffer (pb_step_accum_s),
 *              part of the stage's backward; with FSDP2's copies, their
 *              bytes in the forward and backward (pb_step_fsdp_copy_bytes)
 *   optimizer= Adam over the GPU's (sharded) parameters, memory-bound:
 *              34 bytes per parameter (read fp32 weight, moments, gradient;
 *              write them back and the bf16 copy; the gradient norm) at
 *              the preset's hbm_eff of HBM bandwidth (doc/MODEL.md).
 * Every communication time comes from pb_cost_us applied to the op list
 * pb_traffic_gen produces: the operations the suite measures. */
#ifndef PB_STEP_H
#define PB_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "../patterns/pb_layout.h"
#include "../patterns/pb_model.h"
#include "../patterns/pb_traffic.h"
#include "pb_cost.h"
#include "pb_ep_cost.h"
#include "pb_flops.h"
#include "pb_framework.h"
#include "pb_mem_cap.h"
#include "pb_memory.h"
#include "pb_moe.h"

typedef struct pb_step_cfg {
    pb_recomp_t recomp;
    int flash;
    int causal;
    /* fraction of TP communication hidden, 0..1 (1: userbuffers or
     * async TP "on"); hiding it costs the GEMMs beside it the SMs the
     * overlap takes (pb_step_ub_cost) */
    double tp_overlap;
    double compute_tflops; /* per GPU; 0 = hw bf16 peak x achievable */
    pb_traffic_cfg_t traffic; /* zero, buckets, gradient type, imbalance */
    int gpus_per_node;
    /* Megatron's overlaps, each on by default (pb_step_cfg_default) as
     * current Megatron-Core recipes run: gradient buckets reduced during
     * the backward (--overlap-grad-reduce; off, the reduction follows
     * the last backward, as Megatron's 2021 "local" DDP and DeepSpeed
     * without overlap_comm did), the input-gradient TP collectives beside
     * the weight-gradient GEMMs (async all-reduce, Megatron since 2022),
     * interleaved pipelines' send/recv beside compute
     * (--overlap-p2p-communication). */
    int overlap_grad, overlap_tp_bwd, overlap_p2p;
    /* MoE token dispatcher (pb_ep_cost.h): AUTO (default) is DeepEP's
     * flex dispatcher when the EP group spans nodes, alltoall within one */
    pb_ep_disp_t ep_disp;
    /* Weight gradients accumulated into the gradient buffer by the
     * weight-gradient GEMM itself (Megatron's --gradient-accumulation-
     * fusion, on by default since 2022; TransformerEngine likewise).  Off,
     * every micro-batch's backward ends with a separate add of each
     * gradient into that buffer, as Megatron's 2021 LocalDDP hook
     * (param.main_grad.add_(param.grad.data)) and PyTorch autograd's
     * AccumulateGrad did: pb_step_accum_s. */
    int grad_accum_fused;
    /* ZeRO-3 as PyTorch FSDP2 runs it: each gather's output is copied
     * out into the parameters (split_with_sizes_copy) and each layer's
     * gradients copied into the reduce-scatter buffer in its type, both
     * on the compute stream ("FSDP::all_gather_copy_out" and
     * "FSDP::post_backward_reduce" on the critical path, pytorch/pytorch
     * #157027): pb_step_fsdp_copy_bytes.  Off (the default), the gathers
     * land in the parameters' own storage, as Megatron-FSDP's buffers do. */
    int zero3_copies;
    /* The training stack (pb_framework.h): its memory-bound kernels, its
     * FP8 recipe, its pipeline engine; pb_step_cfg_framework sets its
     * default overlaps.  Default megatron. */
    pb_fw_t framework;
    /* Transformer Engine FP8: the linear layers' GEMMs at the fp8 rate,
     * their casts memory-bound; attention and communication stay bf16.
     * Needs a GPU with fp8_tflops. */
    int fp8;
    /* with fp8: per-tensor (the default) or per-row scales */
    pb_fp8_recipe_t fp8_recipe;
    /* MoE: routing imbalance and EP/compute overlap (pb_moe.h) */
    pb_moe_cfg_t moe;
    /* 1: gradients kept and reduced in the model's 16-bit type (fp16 runs
     * without fp32 gradient accumulation; the overlap letter h), over
     * traffic.grad_dtype, resolved when the model is known */
    int grad_model_dtype;
    /* 1: traffic.grad_dtype was given (--grad-dtype, a grad_dtype
     * column); 0: the stack's own main-gradient type holds in memory */
    int grad_dtype_set;
    /* memory (pb_memory.h): Adam's state type, 4 or 2 bytes (0: 4); the
     * loss's bytes per logit (loss_set 0: the stack's) */
    int optim_bytes;
    double loss_bytes;
    int loss_set;
    /* DeepSeek-V3's DualPipe pipeline schedule (its repository's README
     * table; pb_step.c): each rank holds stage s and stage pp-1-s and
     * runs micro-batches in both directions, a forward and a backward
     * chunk overlapped so that their all-to-alls and sends hide behind
     * each other's compute.  0: Megatron's 1F1B (interleaved with vp). */
    int dualpipe;
} pb_step_cfg_t;

/* The memory model's settings of a step's (pb_memory.h). */
void pb_step_mem_cfg(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                     pb_mem_cfg_t *out);

void pb_step_cfg_default(pb_step_cfg_t *c);
/* The stack's defaults over c: its overlaps, gradient accumulation,
 * FSDP2 copies and TP overlap (pb_framework.c names each one's source). */
void pb_step_cfg_framework(pb_step_cfg_t *c, pb_fw_t fw);

/* SMs Transformer Engine's userbuffers take for a pipelined or bulk TP
 * overlap: initialize_ub's default num_sm = 16 (NVIDIA/TransformerEngine
 * transformer_engine/pytorch/module/base.py; ring exchange 1), as NeMo's
 * H100 configs give the FC2 forward (NVIDIA/NeMo nemo/collections/llm/
 * recipes/tp_overlap_configs/userbuffers.py: fc2_fprop num_sm=16). */
#define PB_UB_SMS 16.0
/* What hiding hidden_s seconds of TP communication costs the compute
 * beside it: the GEMMs run on the SMs the userbuffers leave, so they
 * slow by 1/(1 - u) with u = PB_UB_SMS / hw->sms (H100: 16 of 132), as
 * pb_step_hidden_cost does for NCCL's. */
double pb_step_ub_cost(const pb_hw_t *hw, double hidden_s);

/* The stack's own work (pb_step_stack.c), seconds on one GPU: per
 * micro-batch on a stage beside its layers' kernels, forward (fp8's amax
 * update; DeepSpeed's pipeline copies, first/last: the stage's place) and
 * backward; DeepSpeed's TP regather of a stage's output before its
 * backward (net: the TP group spans nodes); a micro-batch's unfused
 * gradient accumulation on a GPU of `params` parameters. */
double pb_step_stack_fwd_s(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                           const pb_hw_t *hw, int first, int last);
double pb_step_stack_bwd_s(const pb_step_cfg_t *c);
double pb_step_ds_regather_s(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                             const pb_cost_t *cost, int net);
double pb_step_accum_stack_s(const pb_layout_t *l, const pb_step_cfg_t *c, const pb_hw_t *hw,
                             double params);

enum { PB_PART_COMPUTE, PB_PART_TP, PB_PART_PP, PB_PART_BUBBLE, PB_PART_DP, PB_PART_EP,
       PB_PART_CP, PB_PART_OPT, PB_PART_COUNT };
const char *pb_part_name(int part);

typedef struct pb_step {
    double part[PB_PART_COUNT]; /* seconds on the critical path */
    double comm_total[PB_PART_COUNT]; /* seconds before overlap (TP..CP) */
    double total;                   /* seconds per step */
    uint64_t micro;
    double rate_tflops; /* compute rate per GPU: the flat rate given, or
                         * the kernel model's effective one */
    pb_flops_step_t flops;
    double tokens_per_s;
    double tflops_model, tflops_hw; /* per GPU */
    double mfu, hfu;
    double eff_tp, eff_pp, eff_dp;
    double bubble_frac; /* bubble / step */
    /* the attention core's share of the busiest stage's forward FLOPs:
     * the window context parallelism's ring steps hide in */
    double attn_share;
    int net[PB_GK_COUNT]; /* 1: that group kind spans nodes */
    int ops_calibrated, ops_preset;
    /* of ops_calibrated: reductions whose type was not measured, answered
     * by a curve of another or unrecorded type (pb_cost.h); of those, the
     * ones scaled by the ratio of the two types' times where both were
     * measured (pb_cost_src_t.dtype_ratio), with the ratio farthest from 1
     * and its size */
    int ops_other_dtype;
    int ops_dtype_scaled;
    double dt_ratio;
    uint64_t dt_ratio_at;
    /* sizes against the curves' measured ranges (pb_cost.h): of
     * ops_calibrated, those extrapolated up to PB_CALIB_EXTEND past a
     * curve's range, and those answered by a lower-ranked curve because
     * the better one's range does not reach; of ops_preset, those whose
     * collective was measured but at no size within reach */
    int ops_extrapolated, ops_passed, ops_out_of_range;
    /* the out-of-range operation farthest from what was measured: the
     * size asked, and the sizes measured (smallest, largest) */
    uint64_t oor_asked, oor_lo, oor_hi;
    /* of ops_calibrated: those answered by a curve of another group size
     * or placement, moved there by the collective's algorithm model
     * (pb_cost.h), with the farthest such move (shapes: ranks, ranks per
     * node, 0 unknown); and the answers held at a link's ceiling, with
     * the link (PB_CAP_NIC if any was, else PB_CAP_NVLINK) */
    int ops_transferred, ops_capped;
    int tr_from_n, tr_from_per_node, tr_to_n, tr_to_per_node;
    int cap_kind;
    pb_mem_t mem;      /* allocated at the peak, the busiest stage's terms */
    pb_mem_cap_t cap;  /* the device, less what is not the allocator's: cap.usable */
    int fits;          /* pb_mem_needed(mem.total) <= cap.usable, the central prediction */
} pb_step_t;

/* One line (no newline, no prefix) saying how the calibration answered
 * the step's operation kinds: inside its measured range, extrapolated,
 * from another curve, or out of its range and costed from the preset
 * `preset` (a hardware name), with the farthest case's sizes, e.g.
 *   calib: 2 operation kinds inside its measured range, 0 extrapolated
 *   (at most 2x past it), 1 outside it (only 1 MiB measured, 8 MiB
 *   asked) costed from the a100 preset
 * followed, when curves were moved or capped, by e.g.
 *   ; 2 transferred, the farthest transferred from n=8, 4/node to n=32,
 *   1/node; 2 capped at NIC
 * For a step predicted with a calibration. */
void pb_step_calib_note(const pb_step_t *st, const char *preset, char *buf, size_t len);
/* Counts one operation's cost source (pb_cost.h) into st's ops_* fields,
 * keeping the farthest out-of-range size and the farthest move for the
 * note (pb_step_calib.c, like the note). */
void pb_step_count_source(pb_step_t *st, const pb_cost_src_t *s);

/* The layout must have passed pb_layout_check. */
int pb_step_model(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                  const pb_cost_t *cost, pb_step_t *out, pb_err_t *err);

/* DualPipe's bubble (the DualPipe README's table, DeepSeek-V3 Sec.
 * 3.2.1): (pp/2 - 1) (F&B + B - 3W) for a forward chunk F, a backward
 * chunk B (with recomputation), its weight-gradient part W, one
 * micro-batch's on the stage; F&B, a forward and a backward chunk run
 * together, is F + B (their compute shares the GPU; only their
 * communication hides).  In seconds of work: times work / (micro (F +
 * B)), the exposed TP, EP and CP a chunk carries, as 1F1B's bubble is a
 * share of work (pb_step_dualpipe.c). */
double pb_step_dualpipe_bubble(int pp, double fwd, double bwd, double wgrad, double micro,
                               double work);
/* DualPipe's schedule needs an even number of ranks and an even number
 * of micro-batches, at least twice the ranks (dualpipe/dualpipe.py,
 * step's asserts), and one chunk per direction (no --vp): PB_EINPUT. */
int pb_step_dualpipe_check(const pb_layout_t *l, uint64_t micro, pb_err_t *err);

/* Does a group of kind k of the layout span nodes of G GPUs (ranks
 * numbered node by node)? */
int pb_step_group_net(const pb_layout_t *l, pb_gkind_t k, int gpus_per_node);
/* Members of one group of kind k inside one node: the dimensions up to
 * the node's size, in the layout's order (pb_step_place.c). */
int pb_step_group_per_node(const pb_layout_t *l, pb_gkind_t k, int gpus_per_node);

/* Whether TP overlap can run for layout l: a TP group of more than one
 * GPU within a node (Transformer Engine's userbuffers work within one
 * NVLink domain; pb_step_stack.c says where). */
int pb_step_tp_overlap_runs(const pb_layout_t *l, int gpus_per_node);

/* The share of the TP collectives --tp-overlap hides for layout l: c's
 * where it runs, else 0. */
double pb_step_tp_overlap(const pb_layout_t *l, const pb_step_cfg_t *c);

/* Seconds of one micro-batch's unfused gradient accumulation on a GPU
 * holding `params` parameters: read the 16-bit gradient, read and write
 * the accumulator of grad_bytes per element, memory-bound at the
 * preset's hbm_eff of HBM bandwidth (2 + 2 x 4 = 10 bytes per parameter
 * for fp32 main gradients). */
double pb_step_accum_s(const pb_hw_t *hw, double params, double grad_bytes);

/* Bytes per parameter one micro-batch's FSDP2 copies move on the compute
 * stream, forward (*fwd) and backward (*bwd): the forward's copy-out
 * (read and write 2 bytes), the backward's again plus the gradient's
 * copy-in (read 2, write grad_bytes). */
void pb_step_fsdp_copy_bytes(double grad_bytes, double *fwd, double *bwd);

/* The compute a hidden collective still costs: NCCL's kernels take SMs
 * and memory bandwidth from the kernels beside them, so overlapped
 * compute slows by 1/(1 - usage) (Calculon's processor_usage: 0.15 of the
 * GPU for a collective within a node, 0.02 for one over the network).
 * Seconds added for hidden_s seconds of hidden communication. */
double pb_step_hidden_cost(double hidden_s, int net);

/* ZeRO-3 / FSDP traffic of one step on a stage and the compute that can
 * hide it (seconds): every layer's parameters gathered before its
 * forward (fwd) and again before its backward, its gradients scattered
 * after it (bwd), one layer's gather and scatter (ag_one, rs_one), over
 * `micro` micro-batches whose forward and backward passes take fwd_win
 * and bwd_win in all. */
typedef struct pb_z3 {
    double fwd, bwd, ag_one, rs_one, micro, fwd_win, bwd_win;
} pb_z3_t;

/* What of it shows: per micro-batch the first gather of the forward and
 * the last scatter of the backward (nothing of the same pass runs before
 * or after them), and whatever of the rest exceeds its pass's compute
 * (FSDP2's prefetch hides a layer's gather behind the previous layer's
 * compute: PyTorch FSDP2 fully_shard docs, forward/backward prefetch). */
double pb_step_z3_exposed(const pb_z3_t *z);

#endif

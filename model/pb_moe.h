/* pb_moe.h - the MoE mechanisms of the step model beyond one kernel's
 * time: routing imbalance across the EP ranks, the grouped GEMM's loss at
 * few tokens per expert, and the overlap of the EP all-to-alls with the
 * other micro-batch's compute (DualPipe, Megatron-Core's combined 1F1B).
 * doc/MODEL.md, "MoE", gives the source of every number here. */
#ifndef PB_MOE_H
#define PB_MOE_H

/* The busiest EP rank's routed tokens over the mean, by default.
 * Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md measures Qwen3-
 * 235B-A22B on 256 H100 (EP 8, 16 local experts, aux-loss routing) at
 * 295 / 237 TFLOP/s forced-balanced / dropless at 16k tokens (335/277,
 * 368/320, 389/357 at 32k-128k); with the MoE layer's share of the step's
 * FLOPs that is 1.50 to 1.61 times the mean on the busiest rank; the 16k
 * row, where the MoE share is largest, gives 1.50 (doc/MODEL.md, "MoE"). */
#define PB_MOE_IMBALANCE 1.5
/* Rows of one M tile of a Hopper grouped GEMM: each expert's tokens are
 * padded (DeepGEMM's contiguous layout aligns every expert's segment to
 * the M block, get_m_alignment_for_contiguous_layout() = 128) or fill a
 * last partial tile; on average half a tile is lost per expert. */
#define PB_MOE_TILE_M 128.0
/* SMs the EP communication kernels take while they overlap compute:
 * DeepSeek-V3 (arXiv 2412.19437 Sec. 3.2.2) runs its all-to-alls on 20 of
 * the H800's 132 SMs, which "are sufficient to fully utilize the
 * bandwidths of IB and NVLink". */
#define PB_MOE_COMM_SMS 20.0

typedef struct pb_moe_cfg {
    /* busiest EP rank's routed tokens / the mean (>= 1); 0: the traffic's
     * --imbalance when that is above 1, else PB_MOE_IMBALANCE */
    double imbalance;
    /* the EP all-to-alls of one micro-batch run beside the other micro-
     * batch's compute (Megatron-Core --overlap-moe-expert-parallel-comm,
     * DeepSeek-V3's DualPipe); 0: they wait on the critical path */
    int ep_overlap;
} pb_moe_cfg_t;

/* imbalance 0 (the default), no EP overlap */
void pb_moe_cfg_default(pb_moe_cfg_t *c);

/* One number drives the compute and the traffic of the busiest rank: it
 * receives F x the mean in the dispatch and sends it back in the combine
 * (the all-to-all's hottest destination) and computes F x the mean.  F is
 * c->imbalance when given, else the traffic's imbalance when above 1,
 * else PB_MOE_IMBALANCE. */
double pb_moe_imbalance(const pb_moe_cfg_t *c, double traffic_imbalance);
/* F on an EP group of ep ranks: 1 without EP (one rank holds every
 * expert and waits for none), at most ep (one rank takes everything). */
double pb_moe_rank_imbalance(double f, int ep);

/* Share of the dense GEMM rate (pb_gemm_eff at M = tokens per expert) a
 * grouped expert GEMM keeps: m / (m + PB_MOE_TILE_M / 2), the padded or
 * partial last M tile of each expert's tokens.  The dense function
 * already charges the short M itself (doc/MODEL.md, "MoE"). */
double pb_moe_grouped_eff(double tokens_per_expert);

/* What of a step's EP communication shows.  comm: seconds of all its
 * dispatches and combines (forward and backward, every micro-batch);
 * micro: micro-batches; pp: pipeline stages; fwd, bwd: one micro-batch's
 * forward and backward compute on the stage; sms: the GPU's SMs.
 * Without overlap all of comm.  With it, the forward of micro-batch i + 1
 * runs beside the backward of micro-batch i (Megatron-Core
 * combined_1f1b.py; DeepSeek-V3 Sec. 3.2.1 pairs a forward and a backward
 * chunk likewise): each pair's forward all-to-alls hide behind the
 * backward's compute and its backward all-to-alls behind the forward's;
 * what exceeds that compute shows, and so do the all-to-alls of the
 * micro-batches no partner overlaps (max(1, pp - 1) forwards of the
 * warm-up and as many backwards of the cool-down, at most micro); the
 * hidden part still costs the compute it runs beside the SMs it takes:
 * hidden x s / (1 - s), s = PB_MOE_COMM_SMS / sms. */
double pb_moe_ep_exposed(const pb_moe_cfg_t *c, double comm, double micro, int pp, double fwd,
                         double bwd, int sms);

#endif

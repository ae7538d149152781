/* pb_traffic_cfg.h - how a step's traffic is configured beyond the model
 * and the layout: gradient buckets, ZeRO stage, gradient type,
 * recomputation, EP imbalance (the traffic itself: pb_traffic.h).
 *
 * A header of its own because the per-strategy generators read it
 * (pb_traffic_priv.h) and so does the traffic entry point that runs
 * them; with the type in pb_traffic.h the two headers included each
 * other. */
#ifndef PB_TRAFFIC_CFG_H
#define PB_TRAFFIC_CFG_H

#include <stdint.h>

#include "../core/pb_dtype.h"
#include "pb_fw_traffic.h"


/* ZeRO stage 3 (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations
 * Toward Training Trillion Parameter Models", Sec. 5: P_os+g+p): the
 * parameters sharded too and gathered layer by layer; stages 1 and 2
 * shard the optimizer states and the gradients. */
#define PB_ZERO3 3

typedef struct pb_traffic_cfg {
    pb_bucket_t bucket;
    int zero; /* 0: all-reduce; 1, 2: distributed optimizer; 3: per-layer */
    pb_dtype_t grad_dtype;
    int recompute; /* full activation recomputation */
    double imbalance; /* EP: hottest destination / mean; <= 1 balanced */
    /* The type ZeRO-3 gathers parameters in: -1 the model's.  PyTorch
     * FSDP without a param_dtype (Composer's mixed_precision DEFAULT, or
     * plain autocast) keeps and gathers fp32 parameters and casts them at
     * use (torch.distributed.fsdp.MixedPrecision: "param_dtype ... None:
     * no cast"), twice the bytes of a bf16 gather. */
    int param_dtype;
    /* Sequence parallelism's backward gathers a column-parallel layer's
     * input again for its weight gradient (Megatron-Core tensor_parallel/
     * layers.py LinearWithGradAccumulationAndAsyncCommunication.backward,
     * Transformer Engine's LayerNormLinear likewise: they keep the
     * sequence shard, not the gathered input); 0 where the stack keeps the
     * gathered input (DTensor's ColwiseParallel: autograd saves the
     * redistributed tensor).  1 by default, Megatron's. */
    int sp_regather;
    /* ZeRO-3's units beside the layers, and whether a pipeline gathers
     * and reduces once a step (pb_fw_traffic.h); the layers only, every
     * micro-batch, by default */
    pb_z3_ends_t z3_ends;
    int z3_pp_once;
    /* SP norm weights' gradients summed over TP (pb_fw_traffic.h) */
    pb_sp_norm_t sp_norm;
    /* MoE: what the dispatcher sends beside the tokens, and the
     * expert-bias update's all-reduce (pb_fw_traffic.h) */
    pb_ep_meta_t ep_meta;
    int moe_bias;
    /* how ZeRO 1/2 reduce a gradient bucket, and whether their step
     * all-reduces the gradient norm (pb_fw_traffic.h) */
    pb_dp_reduce_t dp_reduce;
    int grad_norm;
} pb_traffic_cfg_t;

/* Megatron's traffic (the defaults parbench has always had) */
void pb_traffic_cfg_default(pb_traffic_cfg_t *c);
/* the stack's choices (pb_fw_traffic.h) over *c */
void pb_traffic_cfg_framework(pb_traffic_cfg_t *c, pb_fw_t fw);

/* Bucket sizes in elements. */
#define PB_DDP_BUCKET_BYTES (UINT64_C(25) << 20) /* torch bucket_cap_mb = 25 */
/* DeepSpeed's reduce_bucket_size and allgather_bucket_size, elements
 * (deepspeed/runtime/zero/config.py: pp_int(5e8) each) */
#define PB_DEEPSPEED_BUCKET_ELEMS UINT64_C(500000000)
/* Megatron-LM's bucket: max(40000000, 1000000 x dp) parameters
 * (megatron/core/distributed/distributed_data_parallel.py) */
#define PB_MEGATRON_BUCKET_MIN UINT64_C(40000000)
#define PB_MEGATRON_BUCKET_PER_DP UINT64_C(1000000)
/* "megatron", "ddp" or "deepspeed"; 0 ok, -1 none of them */
int pb_bucket_parse(const char *s, pb_bucket_t *out);
uint64_t pb_bucket_elems(pb_bucket_t k, int dp_group, pb_dtype_t grad_dtype);

#endif

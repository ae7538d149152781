/* pb_fw_traffic.h - the training stacks, and what each one's choices do
 * to the operations a step sends: the one list the patterns, the step
 * model (model/pb_framework.h adds its kernels, overlaps and memory to
 * the same stacks) and `parbench profile` all read.
 *
 * Here, below the model, because the traffic generators need it and
 * patterns/ may not include model/. */
#ifndef PB_FW_TRAFFIC_H
#define PB_FW_TRAFFIC_H

typedef enum pb_fw {
    PB_FW_MEGATRON, /* Megatron-LM / Megatron-Core with Transformer Engine: the default */
    PB_FW_NEMO,
    PB_FW_DEEPSPEED,
    PB_FW_FSDP,
    PB_FW_TORCHTITAN,
    PB_FW_MAXTEXT, /* JAX / XLA (MaxText, AXLearn, Pax) */
    PB_FW_COUNT
} pb_fw_t;

/* How ZeRO-3 (fully sharded data parallelism) wraps what is outside the
 * transformer layers: the embedding, the final norm and the output layer. */
typedef enum pb_z3_ends {
    /* left out of the sharded units (their gradients not counted) */
    PB_Z3_ENDS_NONE,
    /* torchtitan's apply_fsdp_to_decoder: the embedding a unit of its
     * own, resharded after forward as the layers are; [norm, output] one
     * unit kept gathered after forward ("FSDP would prefetch them
     * immediately") */
    PB_Z3_ENDS_UNITS,
    /* FSDP1 with a transformer-layer wrap policy: what the layers leave
     * is the root's flat parameter, which the root keeps gathered after
     * forward (_runtime_utils.py _post_forward_reshard: "Do not free the
     * root's parameters ... used for backward") */
    PB_Z3_ENDS_ROOT
} pb_z3_ends_t;

/* How sequence parallelism's norm weights get their gradients summed over
 * TP (each TP rank saw only its sequence shard). */
typedef enum pb_sp_norm {
    PB_SPNORM_NONE, /* not listed */
    /* Megatron-Core finalize_model_grads.py _allreduce_non_tensor_model_
     * parallel_grads: every parameter marked sequence_parallel, flattened
     * into one buffer, one all-reduce over TP a step */
    PB_SPNORM_COALESCED,
    /* DTensor's SequenceParallel: each norm weight's gradient is a Partial
     * DTensor, all-reduced one by one - by FSDP2 before its reduce-scatter,
     * in the reduce type, every micro-batch; without FSDP when the
     * optimizer first reads it, once a step */
    PB_SPNORM_EACH
} pb_sp_norm_t;

/* What an MoE layer's token dispatcher sends over EP beside the tokens. */
typedef enum pb_ep_meta {
    PB_EPMETA_NONE, /* not listed */
    /* torchtitan's AllToAllTokenDispatcher._token_count_exchange: the
     * rank's tokens per expert (E int64) all-to-all'd before the tokens,
     * each MoE layer each micro-batch, forward only (under no_grad) */
    PB_EPMETA_COUNTS
} pb_ep_meta_t;

/* Gradient buckets (sizes: pb_traffic_cfg.h pb_bucket_elems). */
typedef enum pb_bucket { PB_BUCKET_MEGATRON, PB_BUCKET_DDP, PB_BUCKET_DEEPSPEED } pb_bucket_t;

/* How ZeRO 1/2 reduce a gradient bucket. */
typedef enum pb_dp_reduce {
    /* a reduce-scatter once a step, after the last micro-batch's backward
     * (Megatron-Core's distributed optimizer: param_and_grad_buffer.py
     * start_grad_sync) */
    PB_DPRED_RS,
    /* DeepSpeed's allreduce_and_scatter: the bucket all-reduced and each
     * rank keeping its partition; ZeRO-2 every micro-batch (it partitions
     * gradients as they come), ZeRO-1 once a step */
    PB_DPRED_AR
} pb_dp_reduce_t;

typedef struct pb_fw_traffic {
    /* SP's backward gathers a column-parallel layer's input again for its
     * weight gradient (pb_traffic_cfg_t.sp_regather) */
    int sp_regather;
    pb_z3_ends_t z3_ends;
    /* ZeRO-3 under a pipeline: each stage gathers its parameters once a
     * step and reduce-scatters its gradients once, after the last
     * micro-batch (pb_traffic_cfg_t.z3_pp_once) */
    int z3_pp_once;
    pb_sp_norm_t sp_norm;
    pb_ep_meta_t ep_meta;
    /* The router's expert-bias update (auxiliary-loss-free balancing,
     * arXiv 2408.15664) all-reduces every MoE layer's tokens per expert,
     * [MoE layers, E] fp32, over the data-parallel ranks (dp x cp) once a
     * step, and over TP too when EP runs beside TP
     * (pb_traffic_cfg_t.moe_bias) */
    int moe_bias;
    /* gradient buckets (--dp-bucket overrides) and how ZeRO 1/2 reduce
     * them */
    pb_bucket_t bucket;
    pb_dp_reduce_t dp_reduce;
    /* ZeRO 1/2's step all-reduces the global gradient norm over DP, one
     * fp32, once a step (DeepSpeed; pb_traffic_cfg_t.grad_norm) */
    int grad_norm;
} pb_fw_traffic_t;

const pb_fw_traffic_t *pb_fw_traffic(pb_fw_t fw);

#endif

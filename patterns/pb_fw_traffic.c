/* Each stack's traffic choices, from its source (doc/patterns.md, "Per
 * framework"):
 *
 * sp_regather - Megatron-Core's LinearWithGradAccumulationAndAsyncCommunication
 *   .backward and Transformer Engine's LayerNormLinear keep the input's
 *   sequence shard and gather it again for the weight gradient (megatron,
 *   nemo, and deepspeed's Megatron layers); torchtitan's DTensor
 *   ColwiseParallel redistributes the input before the matmul, which
 *   autograd saves gathered; fsdp and maxtext run no Megatron-style SP.
 *
 * z3_ends - torchtitan/distributed/fsdp.py apply_fsdp_to_decoder
 *   (pytorch/torchtitan b5bcd76, 2026-08): fully_shard(tok_embeddings,
 *   reshard_after_forward=<policy>), fully_shard([norm, lm_head],
 *   reshard_after_forward=policy == "always"), each block with the
 *   policy, then the root (no parameters of its own left).  FSDP1
 *   (fsdp): torch/distributed/fsdp/_runtime_utils.py
 *   _post_forward_reshard keeps the root's flat parameter gathered.
 *   Megatron, NeMo, DeepSpeed and MaxText: left out (the layers only).
 *
 * z3_pp_once - torchtitan's "default" reshard policy is not to reshard
 *   after forward under a pipeline (get_fsdp_reshard_after_forward_policy:
 *   "avoid per-microbatch all-gathers"), and torch.distributed.pipelining's
 *   stage sets set_reshard_after_backward(False) and
 *   set_requires_gradient_sync(False) for every backward, reducing once
 *   after the last (pipelining/stage.py backward_maybe_with_nosync,
 *   start_gradient_reduction).
 *
 * sp_norm - Megatron-Core: finalize_model_grads.py
 *   _allreduce_non_tensor_model_parallel_grads (NVIDIA/Megatron-LM
 *   d98e8a6, 2026-08), one coalesced all-reduce over TP of the gradients
 *   of parameters marked sequence_parallel (Transformer Engine's norms
 *   mark theirs), SUM; NeMo runs Megatron-Core's.  torchtitan: DTensor
 *   SequenceParallel norms (recorded: tests/fixtures/pytorch/gloo-tpsp
 *   and gloo-2d, one all-reduce of each norm weight's gradient; with
 *   FSDP2 in fp32 before each reduce-scatter, without it once a step in
 *   the fused AdamW).  DeepSpeed: not listed (its Megatron-DeepSpeed
 *   layers' reduction is not checked against a source here); fsdp and
 *   maxtext run no Megatron-style SP.
 *
 * ep_meta - torchtitan: torchtitan/models/common/token_dispatcher.py
 *   AllToAllTokenDispatcher.dispatch (b5bcd76): _token_count_exchange,
 *   an all_to_all_single of routing_map.sum(0) (int64, E of them) over
 *   the EP mesh under torch.no_grad, before the tokens' all-to-all.
 *   Megatron-Core's MoEAlltoAllTokenDispatcher gathers its counts over
 *   TP x EP and sends the routing probabilities beside the tokens
 *   (token_dispatcher.py preprocess, token_dispatch): not listed yet.
 *
 * moe_bias - torchtitan: components/optimizer/optimizer.py
 *   _update_expert_bias, an optimizer step pre-hook registered when the
 *   MoE layers have load_balance_coeff (MoE.Config's default 1e-3):
 *   torch.vstack of every MoE layer's tokens_per_expert_E (fp32), one
 *   all_reduce over the dense TP mesh when ep > 1 and tp > 1, one over
 *   the "loss" mesh (batch x cp).  Megatron-Core's equivalent
 *   (--moe-router-enable-expert-bias, finalize_model_grads.py
 *   _update_router_expert_bias) is off by default.
 *
 * bucket, dp_reduce - Megatron-Core: distributed/distributed_data_
 *   parallel.py, buckets of max(40M, 1M x dp) parameters, reduce-
 *   scattered by the distributed optimizer (param_and_grad_buffer.py
 *   start_grad_sync); NeMo and MaxText are counted the same.  PyTorch
 *   DDP (fsdp and torchtitan without sharding: torch.nn.parallel.
 *   DistributedDataParallel / replicate, bucket_cap_mb 25).  DeepSpeed
 *   (deepspeedai/DeepSpeed edaa722, 2026-08): reduce_bucket_size and
 *   allgather_bucket_size 5e8 elements (runtime/zero/config.py); with
 *   reduce_scatter and use_multi_rank_bucket_allreduce on (their
 *   defaults) stage_1_and_2.py average_tensor reduces a bucket by
 *   allreduce_and_scatter - dist.all_reduce of the bucket, each rank
 *   keeping its partition - in every backward under ZeRO-2
 *   (partition_gradients: reduce_ready_partitions_and_remove_grads), at
 *   the gradient-accumulation boundary under ZeRO-1; the updated
 *   parameters all-gathered after the step (all_gather_dp_groups). */
#include "pb_fw_traffic.h"

static const pb_fw_traffic_t fw_traffic[PB_FW_COUNT] = {
    [PB_FW_MEGATRON] = {1, PB_Z3_ENDS_NONE, 0, PB_SPNORM_COALESCED, PB_EPMETA_NONE, 0,
                        PB_BUCKET_MEGATRON, PB_DPRED_RS, 0},
    [PB_FW_NEMO] = {1, PB_Z3_ENDS_NONE, 0, PB_SPNORM_COALESCED, PB_EPMETA_NONE, 0,
                    PB_BUCKET_MEGATRON, PB_DPRED_RS, 0},
    [PB_FW_DEEPSPEED] = {1, PB_Z3_ENDS_NONE, 0, PB_SPNORM_NONE, PB_EPMETA_NONE, 0,
                         PB_BUCKET_DEEPSPEED, PB_DPRED_AR, 1},
    [PB_FW_FSDP] = {0, PB_Z3_ENDS_ROOT, 0, PB_SPNORM_NONE, PB_EPMETA_NONE, 0, PB_BUCKET_DDP,
                    PB_DPRED_RS, 0},
    [PB_FW_TORCHTITAN] = {0, PB_Z3_ENDS_UNITS, 1, PB_SPNORM_EACH, PB_EPMETA_COUNTS, 1,
                          PB_BUCKET_DDP, PB_DPRED_RS, 0},
    [PB_FW_MAXTEXT] = {0, PB_Z3_ENDS_NONE, 0, PB_SPNORM_NONE, PB_EPMETA_NONE, 0, PB_BUCKET_MEGATRON,
                       PB_DPRED_RS, 0},
};

const pb_fw_traffic_t *pb_fw_traffic(pb_fw_t fw)
{
    return &fw_traffic[fw >= 0 && fw < PB_FW_COUNT ? fw : PB_FW_MEGATRON];
}

/* The training stack's part of a step (pb_framework.h): its defaults over
 * the step's settings, what hidden collectives still cost, where TP
 * overlap runs and what "on" means on a GPU, and the work a stack adds per
 * micro-batch beside the layers' kernels (pb_step.h). */
#include "pb_step.h"

#include "pb_kernels.h"

/* Calculon's processor_usage per network tier (calculon-ai/calculon
 * systems/a100_80g.json, h100_80g_nvl8.json; doc/MODEL.md "Overlaps"):
 * the share of the SMs a hidden collective takes from compute */
#define PB_HIDDEN_USE_NVLINK 0.15
#define PB_HIDDEN_USE_NET 0.02
/* a DeepSpeed pipeline copy of a stage's tensor: bf16 read and written */
#define PB_DS_PIPE_COPY_B 4.0

void pb_step_cfg_framework(pb_step_cfg_t *c, pb_fw_t fw)
{
    const pb_fw_desc_t *d = pb_fw_desc(fw);
    c->framework = fw;
    c->overlap_grad = d->overlap_grad;
    c->overlap_tp_bwd = d->overlap_tp_bwd;
    c->overlap_p2p = d->overlap_p2p;
    c->grad_accum_fused = d->grad_accum_fused;
    c->zero3_copies = d->zero3_copies;
    c->tp_overlap = d->tp_overlap;
    pb_traffic_cfg_framework(&c->traffic, fw);
}

double pb_step_hidden_cost(double hidden_s, int net)
{
    /* Calculon's processor_usage per network tier (calculon
     * systems/a100_80g.json, h100_80g_nvl8.json; doc/MODEL.md
     * "Overlaps"): 0.15 of the SMs for NVLink collectives, 0.02 for InfiniBand */
    double use = net ? PB_HIDDEN_USE_NET : PB_HIDDEN_USE_NVLINK;
    return hidden_s > 0 ? hidden_s * use / (1.0 - use) : 0.0;
}

int pb_step_tp_overlap_runs(const pb_layout_t *l, int gpus_per_node)
{
    /* Transformer Engine's userbuffers place the TP group in one NVLink
     * domain: CommOverlapCore creates its communicator with tensorgpus =
     * tp_size and tensornodes = 1 (transformer_engine/common/
     * comm_gemm_overlap/comm_gemm_overlap.cpp, create_communicator_
     * grouped2), its buffers shared through CUDA IPC or NVLink multicast */
    return l->size[PB_DIM_TP] > 1 && !pb_step_group_net(l, PB_GK_TP, gpus_per_node);
}

double pb_step_tp_overlap(const pb_layout_t *l, const pb_step_cfg_t *c)
{
    return pb_step_tp_overlap_runs(l, c->gpus_per_node) ? c->tp_overlap : 0.0;
}

double pb_step_ub_cost(const pb_hw_t *hw, double hidden_s)
{
    double u = hw->sms > 0 ? PB_UB_SMS / (double)hw->sms : 0.0;
    return hidden_s > 0 && u < 1.0 ? hidden_s * u / (1.0 - u) : 0.0;
}

/* elements of the tensor one pipeline stage sends per micro-batch */
static double pipe_elems(const pb_model_t *m, const pb_layout_t *l)
{
    return (double)m->mbs * (double)m->seq / (double)l->size[PB_DIM_CP] * (double)m->hidden;
}

/* FP8 with delayed scaling: Transformer Engine reduces the amaxes and
 * updates every scale in one fused kernel when the forward's autocast
 * ends (FP8GlobalStateManager.reduce_and_update_fp8_tensors), and again
 * after the backward: one launch each way (the amax all-reduce, a few KB,
 * is left out).  DeepSpeed's pipeline engine (deepspeed/runtime/pipe/
 * engine.py): a stage that receives copies the received activation
 * (_exec_recv_activations: buffer.clone()) and again before its forward
 * (_exec_forward_pass: inputs clone()), and one that sends copies its
 * partition of the output (PartitionedTensor.data(), with TP); each copy
 * reads and writes 2 B per element of what was sent (1/tp of the tensor,
 * pipe_partitioned being DeepSpeed's default). */
double pb_step_stack_fwd_s(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                           const pb_hw_t *hw, int first, int last)
{
    const pb_fw_desc_t *d = pb_fw_desc(c->framework);
    double s = c->fp8 && !d->fp8.current ? PB_KERNEL_US * 1e-6 : 0.0;
    int tp = l->size[PB_DIM_TP];
    if (!d->ds_pipe || l->size[PB_DIM_PP] < 2)
        return s;
    double part = pipe_elems(m, l) / (double)tp;
    int copies = (first ? 0 : 2) + (last || tp < 2 ? 0 : 1);
    for (int i = 0; i < copies; i++)
        s += pb_membound_s(hw, PB_DS_PIPE_COPY_B * part);
    return s;
}

double pb_step_stack_bwd_s(const pb_step_cfg_t *c)
{
    return c->fp8 && !pb_fw_desc(c->framework)->fp8.current ? PB_KERNEL_US * 1e-6 : 0.0;
}

/* DeepSpeed partitions a stage's output over TP to send it and keeps only
 * the graph; before the backward it rebuilds the output with an
 * all-gather over TP (_exec_backward_pass: part_output.full(), with
 * grad_partitioned, DeepSpeed's default), which Megatron, keeping its
 * output, does not.  Seconds of one, bf16. */
double pb_step_ds_regather_s(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                             const pb_cost_t *cost, int net)
{
    int tp = l->size[PB_DIM_TP];
    if (!pb_fw_desc(c->framework)->ds_pipe || l->size[PB_DIM_PP] < 2 || tp < 2)
        return 0.0;
    uint64_t bytes = (uint64_t)(2.0 * pipe_elems(m, l));
    return pb_cost_us(cost, PB_ALLGATHER, PB_BF16, tp, net, bytes, 1.0, NULL) * 1e-6;
}

/* An unfused accumulation adds each micro-batch's gradients into the
 * kept ones (pb_step_accum_s); DeepSpeed's BF16_Optimizer casts first
 * (update_hp_grads: hp_grad.add_(lp.grad.to(fp32))), the stack's
 * accum_extra_bytes more.  Under ZeRO-3 each micro-batch's gradients are
 * reduce-scattered and only the shard is accumulated (PyTorch FSDP's
 * sharded gradient, sharded_param.grad += the new shard): 1/d of them. */
double pb_step_accum_stack_s(const pb_layout_t *l, const pb_step_cfg_t *c, const pb_hw_t *hw,
                             double params)
{
    int d = pb_layout_dp_shard(l);
    if (c->traffic.zero == PB_ZERO3 && d > 1)
        params /= (double)d;
    double extra = pb_fw_desc(c->framework)->accum_extra_bytes;
    return pb_step_accum_s(hw, params, (double)pb_dtype_size(c->traffic.grad_dtype)) +
           params * extra / (hw->hbm_tbps * 1e12 * hw->hbm_eff);
}

double pb_step_accum_s(const pb_hw_t *hw, double params, double grad_bytes)
{
    return params * (2.0 + 2.0 * grad_bytes) / (hw->hbm_tbps * 1e12 * hw->hbm_eff);
}

void pb_step_fsdp_copy_bytes(double grad_bytes, double *fwd, double *bwd)
{
    *fwd = 2.0 + 2.0;
    *bwd = 2.0 + 2.0 + 2.0 + grad_bytes;
}

/* Data parallelism: every replica's gradients are reduced once per step
 * (after the last micro-batch's backward, overlapped with it bucket by
 * bucket).  A rank holds P/(tp*pp) of the parameters; expert weights are
 * further split by ep and reduced over the expert-data-parallel group.
 *  ZeRO 0:   buckets all-reduced (PyTorch DDP, Megatron default);
 *  ZeRO 1/2: buckets reduce-scattered, and after the optimizer step the
 *            updated parameters all-gathered in the model's type (Megatron
 *            --use-distributed-optimizer; Rajbhandari et al. 2020); under
 *            DeepSpeed all-reduced instead, ZeRO-2's every micro-batch
 *            (pb_fw_traffic.h).  With a shard group, Megatron's partial
 *            distributed optimizer (--num-distributed-optimizer-instances
 *            = dp / shard): reduce-scattered and gathered within the
 *            instance, the shard all-reduced across the instances;
 *  ZeRO 3:   per layer, parameters all-gathered before its forward and
 *            again before its backward, gradients reduce-scattered after
 *            it, every micro-batch (FSDP FULL_SHARD); under HSDP over the
 *            shard group, each reduced shard then all-reduced over the
 *            replica group (HYBRID_SHARD).  The unit is one
 *            layer (an MoE layer's routed experts on the expert-data-
 *            parallel group); the embedding and output layer as the stack
 *            wraps them, under a pipeline once a step where it says so
 *            (pb_fw_traffic.h).
 * Sharded buckets are padded to a multiple of the group size, as
 * Megatron pads them. */
#include "pb_traffic_priv.h"

static uint64_t pad(uint64_t x, uint64_t n)
{
    return (x + n - 1) / n * n;
}

/* A shard group's reduce-scatter (rs) is followed by the replicas' all-
 * reduce of the shard it left: HSDP (FSDP2's post-backward foreach_reduce
 * reduce-scatters over the shard mesh dimension, then all-reduces the
 * output over the replicate one; FSDP1 HYBRID_SHARD the same in
 * _reduce_grad) and Megatron's partial distributed optimizer (its
 * buckets reduce-scattered within the instance, then all-reduced across
 * the instances: the intra- and inter-partial data-parallel groups of
 * parallel_state).  Nothing for any other operation. */
static int replicas(const pb_tr_in_t *in, const pb_pat_op_t *rs, pb_op_list_t *out,
                    pb_err_t *err)
{
    int r = pb_layout_group_size(in->l, PB_GK_REPL);
    if (rs->group != PB_GK_SHARD || r < 2)
        return PB_OK;
    pb_pat_op_t o = *rs;
    o.coll = PB_ALLREDUCE;
    o.group = PB_GK_REPL;
    o.group_size = r;
    o.bytes = rs->bytes / (uint64_t)rs->group_size;
    o.what = "gradient shards across the replicas";
    return pb_op_list_push(out, &o, err);
}

/* A rank's gradient buckets over group kind g of n ranks: all-reduced
 * (ZeRO 0), or sharded (ZeRO 1/2) - reduce-scattered, or all-reduced
 * with each rank keeping its partition where the stack does that
 * (DeepSpeed; ZeRO-2 then every micro-batch) - and the updated parameters
 * all-gathered after the step. */
static int bucket_ops(const pb_tr_in_t *in, pb_gkind_t g, int n, uint64_t elems, int sharded,
                      pb_op_list_t *out, pb_err_t *err)
{
    pb_dtype_t gt = in->cfg->grad_dtype;
    uint64_t ge = pb_dtype_size(gt);
    uint64_t b = pb_bucket_elems(in->cfg->bucket, n, gt);
    uint64_t sizes[2] = {b, elems % b}, counts[2] = {elems / b, 1};
    int ar = !sharded || in->cfg->dp_reduce == PB_DPRED_AR;
    int each_micro = sharded && ar && in->cfg->zero == 2;
    const char *grads = g == PB_GK_EDP ? "expert gradient bucket" : "gradient bucket";
    for (int i = 0; i < 2; i++) {
        if (sizes[i] == 0 || counts[i] == 0)
            continue;
        uint64_t el = ar ? sizes[i] : pad(sizes[i], (uint64_t)n);
        pb_pat_op_t o = pb_tr_op(PB_STRAT_DP, ar ? PB_ALLREDUCE : PB_REDUCESCATTER, g, n, el * ge,
                                 gt, counts[i] * (each_micro ? in->micro : 1), PB_PH_BWD, 1,
                                 PB_P2P_NONE, grads);
        o.per_pass = each_micro;
        if (pb_op_list_push(out, &o, err) || replicas(in, &o, out, err))
            return err->code;
        if (!sharded)
            continue;
        el = pad(sizes[i], (uint64_t)n);
        o = pb_tr_op(PB_STRAT_DP, PB_ALLGATHER, g, n, el * in->e, in->m->dtype, counts[i],
                     PB_PH_OPT, 1, PB_P2P_NONE,
                     g == PB_GK_EDP ? "updated expert parameters" : "updated parameters");
        if (pb_op_list_push(out, &o, err))
            return err->code;
    }
    return PB_OK;
}

/* One sharded unit's gathers and reduce-scatters over group kind g of n
 * ranks: `elems` parameters of the rank's TP (or EP) shard, padded to the
 * group; `units` of them on the stage; gathered before the forward, again
 * before the backward when `regather` (resharded after forward), reduced
 * after the backward.  `passes` times a step: every micro-batch, or once
 * where the stack keeps the parameters gathered and the gradients
 * unreduced until the last. */
typedef struct z3_unit {
    uint64_t elems, units;
    int regather;
    pb_pat_stage_t stage;
    pb_gkind_t g;
    int n;
    const char *fwd, *bwd, *grad;
} z3_unit_t;

static int z3_push(const pb_tr_in_t *in, const z3_unit_t *u, uint64_t passes, pb_op_list_t *out,
                   pb_err_t *err)
{
    int n = u->n;
    uint64_t el = pad(u->elems, (uint64_t)n), count = u->units * passes;
    pb_dtype_t gt = in->cfg->grad_dtype;
    pb_dtype_t pt = in->cfg->param_dtype >= 0 ? (pb_dtype_t)in->cfg->param_dtype : in->m->dtype;
    int per_pass = passes == in->micro; /* each micro-batch's, not once a step's */
    pb_pat_op_t o = pb_tr_op(PB_STRAT_DP, PB_ALLGATHER, u->g, n, el * pb_dtype_size(pt), pt,
                             count, PB_PH_FWD, 1, PB_P2P_NONE, u->fwd);
    o.per_pass = per_pass;
    o.stage = u->stage;
    if (pb_op_list_push(out, &o, err))
        return err->code;
    if (u->regather) {
        o.phase = PB_PH_BWD;
        o.what = u->bwd;
        if (pb_op_list_push(out, &o, err))
            return err->code;
    }
    o = pb_tr_op(PB_STRAT_DP, PB_REDUCESCATTER, u->g, n, el * pb_dtype_size(gt), gt, count,
                 PB_PH_BWD, 1, PB_P2P_NONE, u->grad);
    o.per_pass = per_pass;
    o.stage = u->stage;
    if (pb_op_list_push(out, &o, err))
        return err->code;
    return replicas(in, &o, out, err);
}

/* ZeRO-3 (pb_fw_traffic.h): the layers, each a unit; the embedding and
 * the output layer as the stack wraps them.  A layer's norms are not
 * split by TP (Megatron's and DTensor's SequenceParallel norms keep
 * their whole weight); the embedding and output matrices are (vocab-
 * parallel).  An MoE layer is one unit on two groups, as FSDP2 shards it
 * under torchtitan's apply_fsdp_to_decoder (ep > 1: a shard_placement_fn
 * puts the routed experts on the expert-FSDP mesh): its attention,
 * norms, router (replicated over TP) and shared experts over the data-
 * parallel ranks (group kind g of n: DP, or HSDP's shard group), its
 * routed experts, split by ep and the expert TP, over the expert-data-
 * parallel ranks (edp).  A group of one rank sends nothing. */
static int zero3(const pb_tr_in_t *in, pb_gkind_t g, int n, int edp, pb_op_list_t *out,
                 pb_err_t *err)
{
    const pb_model_t *m = in->m;
    const pb_layout_t *l = in->l;
    uint64_t tp = (uint64_t)l->size[PB_DIM_TP], h = m->hidden;
    int piped = l->size[PB_DIM_PP] > 1, once = piped && in->cfg->z3_pp_once;
    uint64_t passes = once ? 1 : in->micro, vh = m->vocab * h / tp;
    pb_pat_stage_t first = piped ? PB_STAGE_FIRST : PB_STAGE_EVERY;
    pb_pat_stage_t last = piped ? PB_STAGE_LAST : PB_STAGE_EVERY;
    uint64_t moe_rest = (pb_model_attn_params(m) + pb_model_shared_params(m)) / tp + 2 * h +
                        h * m->experts;
    uint64_t experts = pb_model_expert_params(m) /
                       ((uint64_t)pb_layout_etp(l) * (uint64_t)l->size[PB_DIM_EP]);
    enum { DENSE, EMB, OUT, MOE, EXPERTS, NUNITS };
    z3_unit_t u[NUNITS] = {
        [DENSE] = {(pb_model_dense_layer_params(m) - 2 * h) / tp + 2 * h, in->layers - in->moe,
                   !once, PB_STAGE_EVERY, g, n, "layer parameters (ZeRO-3)",
                   "layer parameters again (ZeRO-3)", "layer gradients (ZeRO-3)"},
        [EMB] = {vh, 1, !once, first, g, n, "embedding parameters (ZeRO-3)",
                 "embedding parameters again (ZeRO-3)", "embedding gradients (ZeRO-3)"},
        [OUT] = {vh + h, 1, 0, last, g, n, "norm + output layer parameters (ZeRO-3)", NULL,
                 "norm + output layer gradients (ZeRO-3)"},
        [MOE] = {moe_rest, in->moe, !once, PB_STAGE_EVERY, g, n,
                 "MoE layer parameters but the experts (ZeRO-3)",
                 "MoE layer parameters but the experts again (ZeRO-3)",
                 "MoE layer gradients but the experts (ZeRO-3)"},
        [EXPERTS] = {experts, in->moe, !once, PB_STAGE_EVERY, PB_GK_EDP, edp,
                     "expert parameters (ZeRO-3)", "expert parameters again (ZeRO-3)",
                     "expert gradients (ZeRO-3)"},
    };
    int use[NUNITS] = {1, in->cfg->z3_ends == PB_Z3_ENDS_UNITS,
                       in->cfg->z3_ends == PB_Z3_ENDS_UNITS, 1, 1};
    if (in->cfg->z3_ends == PB_Z3_ENDS_ROOT) {
        /* one root unit, kept gathered after forward; split between the
         * ends when a pipeline puts them on different stages */
        u[EMB].regather = 0;
        u[EMB].fwd = "root parameters (ZeRO-3)";
        u[EMB].grad = "root gradients (ZeRO-3)";
        if (!piped)
            u[EMB].elems = 2 * vh + h;
        else
            u[OUT].fwd = u[EMB].fwd, u[OUT].grad = u[EMB].grad;
        use[EMB] = 1, use[OUT] = piped;
    }
    for (int i = 0; i < NUNITS; i++)
        if (use[i] && u[i].n > 1 && u[i].units > 0 && z3_push(in, &u[i], passes, out, err))
            return err->code;
    return PB_OK;
}

int pb_traffic_dp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    const pb_layout_t *l = in->l;
    const pb_model_t *m = in->m;
    int n = l->size[PB_DIM_DP] * l->size[PB_DIM_CP];
    uint64_t tp_pp = (uint64_t)l->size[PB_DIM_TP] * (uint64_t)l->size[PB_DIM_PP];
    uint64_t expert = pb_model_moe_layers(m) * pb_model_expert_params(m);
    uint64_t dense = pb_model_params(m) - expert;
    int zero = in->cfg->zero;
    int edp = pb_layout_group_size(l, PB_GK_EDP);
    /* a shard group cuts what is sharded: ZeRO-3's parameters (HSDP), or
     * Megatron's distributed optimizer reduce-scattering its buckets */
    if (l->shard > 0 && (zero == 0 || (zero < PB_ZERO3 && in->cfg->dp_reduce == PB_DPRED_AR)))
        return pb_err_set(err, PB_EINPUT,
                          "--shard-group %d shards the optimizer within groups of data-parallel "
                          "ranks: it needs --zero 3 (HSDP), or --zero 1 or 2 with Megatron's "
                          "distributed optimizer (partial instances), not %s",
                          l->shard, zero == 0 ? "--zero 0" : "DeepSpeed's all-reduce");
    /* what is sharded is sharded over the shard group when there is one
     * (HSDP; pb_layout_check keeps it off MoE models, so the experts'
     * units stay on EDP) */
    pb_gkind_t g = l->shard > 0 ? PB_GK_SHARD : PB_GK_DP;
    int ns = pb_layout_group_size(l, g);
    if (zero == PB_ZERO3)
        return zero3(in, g, ns, edp, out, err);
    if (n > 1 && bucket_ops(in, g, ns, dense / tp_pp, zero > 0, out, err))
        return err->code;
    /* the norm of the gradient one optimizer instance holds in shards */
    if (ns > 1 && zero > 0 && in->cfg->grad_norm) {
        pb_pat_op_t o = pb_tr_op(PB_STRAT_DP, PB_ALLREDUCE, g, ns, pb_dtype_size(PB_F32),
                                 PB_F32, 1, PB_PH_OPT, 0, PB_P2P_NONE, "global gradient norm");
        if (pb_op_list_push(out, &o, err))
            return err->code;
    }
    uint64_t etp_pp = (uint64_t)pb_layout_etp(l) * (uint64_t)l->size[PB_DIM_PP];
    if (expert > 0 && edp > 1)
        return bucket_ops(in, PB_GK_EDP, edp, expert / (etp_pp * (uint64_t)l->size[PB_DIM_EP]),
                          zero > 0, out, err);
    return PB_OK;
}

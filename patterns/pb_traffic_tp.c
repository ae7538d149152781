/* Tensor parallelism (Shoeybi et al. 2019, Megatron-LM, Sec. 3): the
 * attention block and the MLP each end in an all-reduce of the b*s*h
 * output forward, and their inputs' gradients are all-reduced backward:
 * 4 per layer (2 for an MoE layer folded with --etp 1).  With sequence parallelism (Korthikanti et al. 2022,
 * Sec. 4.2.2) each all-reduce is split into an all-gather (before the
 * block) and a reduce-scatter (after it) of the same full tensor. */
#include "pb_traffic_priv.h"

static int push4(const pb_tr_in_t *in, pb_op_list_t *out, pb_phase_t ph, uint64_t count,
                 const char *what_ar, const char *what_ag, const char *what_rs, pb_err_t *err)
{
    int tp = in->l->size[PB_DIM_TP];
    pb_dtype_t t = in->m->dtype;
    pb_pat_op_t o;
    if (in->tp_strategy == PB_STRAT_TP) {
        o = pb_tr_op(PB_STRAT_TP, PB_ALLREDUCE, PB_GK_TP, tp, in->act, t, count, ph, 0,
                     PB_P2P_NONE, what_ar);
        return pb_op_list_push(out, &o, err);
    }
    o = pb_tr_op(PB_STRAT_SP, PB_ALLGATHER, PB_GK_TP, tp, in->act, t, count, ph, 0,
                 PB_P2P_NONE, what_ag);
    if (pb_op_list_push(out, &o, err))
        return err->code;
    o = pb_tr_op(PB_STRAT_SP, PB_REDUCESCATTER, PB_GK_TP, tp, in->act, t, count, ph, 0,
                 PB_P2P_NONE, what_rs);
    return pb_op_list_push(out, &o, err);
}

int pb_traffic_tp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    if (in->l->size[PB_DIM_TP] < 2)
        return PB_OK;
    /* 2 per layer per micro-batch: attention and MLP.  An MoE layer whose
     * experts have no tensor parallelism of their own (--etp 1, parallel
     * folding) keeps only the attention's: its router and dispatcher work
     * on the rank's own sequence shard, and Megatron-Core's dispatchers
     * gather over the expert-TP group only when it is above 1
     * (token_dispatcher.py dispatch_postprocess, "if self.tp_size > 1") */
    uint64_t folded = in->l->etp == 1 ? in->moe : 0;
    uint64_t per_step = (2 * in->layers - folded) * in->micro;
    if (push4(in, out, PB_PH_FWD, per_step, "attention + MLP outputs",
              "gather sequence before attention + MLP", "scatter attention + MLP outputs", err) ||
        push4(in, out, PB_PH_BWD, per_step, "attention + MLP input gradients",
              "gather gradients (backward of scatter)", "scatter input gradients", err))
        return err->code;
    if (in->cfg->recompute &&
        push4(in, out, PB_PH_BWD, per_step, "recomputed forward (activation recompute)",
              "recomputed forward gather", "recomputed forward scatter", err))
        return err->code;
    return PB_OK;
}

/* Expert parallelism (Lepikhin et al. 2020, GShard; Megatron-Core's
 * all-to-all token dispatcher): each MoE layer sends every token to its
 * top-k experts (dispatch) and brings the results back (combine), both
 * again backward: 4 all-to-alls per MoE layer per micro-batch, each of a
 * rank's tokens x topk x h elements.  An uneven router makes one
 * destination hotter than the rest: an all-to-all-v.  Beside the tokens,
 * what the stack's dispatcher and router send (pb_fw_traffic.h): the
 * token counts before the tokens, the expert-bias update once a step. */
#include "pb_traffic_priv.h"

/* The expert-bias update: [MoE layers, E] fp32 token counts all-reduced
 * over the data-parallel ranks, and over TP when EP runs beside it
 * (torchtitan's _update_expert_bias, blocking on the compute stream: not
 * overlapped).  It runs whether or not EP does. */
static int bias_sync(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    const pb_layout_t *l = in->l;
    uint64_t bytes = in->moe * in->m->experts * pb_dtype_size(PB_F32);
    struct {
        pb_gkind_t g;
        int n;
    } over[2] = {
        {PB_GK_TP, l->size[PB_DIM_EP] > 1 ? l->size[PB_DIM_TP] : 1},
        {PB_GK_DP, l->size[PB_DIM_DP] * l->size[PB_DIM_CP]},
    };
    for (int i = 0; i < 2; i++) {
        if (over[i].n < 2 || bytes == 0)
            continue;
        pb_pat_op_t o = pb_tr_op(PB_STRAT_EP, PB_ALLREDUCE, over[i].g, over[i].n, bytes, PB_F32,
                                 1, PB_PH_OPT, 0, PB_P2P_NONE, "MoE tokens per expert (expert bias)");
        if (pb_op_list_push(out, &o, err))
            return err->code;
    }
    return PB_OK;
}

int pb_traffic_ep(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    const pb_layout_t *l = in->l;
    const pb_model_t *m = in->m;
    int ep = l->size[PB_DIM_EP];
    if (m->experts == 0)
        return PB_OK;
    if (in->cfg->moe_bias && bias_sync(in, out, err))
        return err->code;
    if (ep < 2)
        return PB_OK;
    double imb = in->cfg->imbalance;
    if (imb > (double)ep)
        return pb_err_set(err, PB_EINPUT,
                          "--imbalance %g is above ep %d: one destination cannot take more than all tokens",
                          imb, ep);
    uint64_t count = in->moe * in->micro;
    if (in->cfg->ep_meta == PB_EPMETA_COUNTS) {
        pb_pat_op_t o = pb_tr_op(PB_STRAT_EP, PB_ALLTOALL, PB_GK_EP, ep,
                                 m->experts * pb_dtype_size(PB_I64), PB_I64, count, PB_PH_FWD, 0,
                                 PB_P2P_NONE, "tokens per expert, before the dispatch");
        if (pb_op_list_push(out, &o, err))
            return err->code;
    }
    uint64_t tokens = m->mbs * (m->seq / (uint64_t)l->size[PB_DIM_CP]) /
                      (l->sp ? (uint64_t)l->size[PB_DIM_TP] : 1u);
    uint64_t bytes = tokens * m->topk * m->hidden * in->e;
    pb_coll_t c = imb > 1.0 ? PB_ALLTOALLV : PB_ALLTOALL;
    pb_pat_op_t o = pb_tr_op(PB_STRAT_EP, c, PB_GK_EP, ep, bytes, m->dtype, 2 * count, PB_PH_FWD,
                             0, PB_P2P_NONE, "token dispatch + combine");
    o.imbalance = imb > 1.0 ? imb : 0.0;
    if (pb_op_list_push(out, &o, err))
        return err->code;
    o.phase = PB_PH_BWD;
    o.what = "gradient dispatch + combine";
    return pb_op_list_push(out, &o, err);
}

/* Expert parallelism (Lepikhin et al. 2020, GShard; Megatron-Core's
 * all-to-all token dispatcher): each MoE layer sends every token to its
 * top-k experts (dispatch) and brings the results back (combine), both
 * again backward: 4 all-to-alls per MoE layer per micro-batch, each of a
 * rank's tokens x topk x h elements.  An uneven router makes one
 * destination hotter than the rest: an all-to-all-v. */
#include "pb_traffic_priv.h"

int pb_traffic_ep(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    const pb_layout_t *l = in->l;
    const pb_model_t *m = in->m;
    int ep = l->size[PB_DIM_EP];
    if (ep < 2 || m->experts == 0)
        return PB_OK;
    double imb = in->cfg->imbalance;
    if (imb > (double)ep)
        return pb_err_set(err, PB_EINPUT,
                          "--imbalance %g is above ep %d: one destination cannot take more than all tokens",
                          imb, ep);
    uint64_t tokens = m->mbs * (m->seq / (uint64_t)l->size[PB_DIM_CP]) /
                      (l->sp ? (uint64_t)l->size[PB_DIM_TP] : 1u);
    uint64_t bytes = tokens * m->topk * m->hidden * in->e;
    uint64_t count = 2 * in->moe * in->micro; /* dispatch + combine */
    pb_coll_t c = imb > 1.0 ? PB_ALLTOALLV : PB_ALLTOALL;
    pb_pat_op_t o = pb_tr_op(PB_STRAT_EP, c, PB_GK_EP, ep, bytes, m->dtype, count, PB_PH_FWD, 0,
                             PB_P2P_NONE, "token dispatch + combine");
    o.imbalance = imb > 1.0 ? imb : 0.0;
    if (pb_op_list_push(out, &o, err))
        return err->code;
    o.phase = PB_PH_BWD;
    o.what = "gradient dispatch + combine";
    return pb_op_list_push(out, &o, err);
}

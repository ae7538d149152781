/* Pipeline parallelism (Narayanan et al. 2021, Sec. 2.2): per micro-batch
 * each stage sends its output activations to the next stage and, backward,
 * their gradients to the previous one.  With the scatter/gather
 * optimisation or SP each TP rank sends only its 1/tp of the tensor.
 * Interleaving (vp model chunks per stage) crosses vp times as many stage
 * boundaries, and the last stage feeds the first (a ring). */
#include "pb_traffic_priv.h"

int pb_traffic_pp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    const pb_layout_t *l = in->l;
    int pp = l->size[PB_DIM_PP];
    if (pp < 2)
        return PB_OK;
    uint64_t bytes = in->act / (l->sp ? (uint64_t)l->size[PB_DIM_TP] : 1u);
    uint64_t count = in->micro * (uint64_t)l->vp;
    int ring = l->vp > 1;
    /* interleaved schedules overlap their p2p with compute (Megatron
     * --overlap-p2p-comm); 1F1B's sends sit on the critical path */
    pb_pat_op_t o = pb_tr_op(PB_STRAT_PP, PB_SENDRECV, PB_GK_PP, pp, bytes, in->m->dtype,
                             count, PB_PH_FWD, ring, ring ? PB_P2P_RING_NEXT : PB_P2P_NEXT,
                             "activations to the next stage");
    if (pb_op_list_push(out, &o, err))
        return err->code;
    o = pb_tr_op(PB_STRAT_PP, PB_SENDRECV, PB_GK_PP, pp, bytes, in->m->dtype, count,
                 PB_PH_BWD, ring, ring ? PB_P2P_RING_PREV : PB_P2P_PREV,
                 "activation gradients to the previous stage");
    return pb_op_list_push(out, &o, err);
}

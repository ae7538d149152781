/* Context parallelism with ring attention (Liu et al. 2023; Megatron-Core
 * through Transformer Engine's P2P implementation): the sequence is cut
 * into cp chunks, and each layer passes the K and V blocks around the ring
 * in cp-1 steps so every rank sees every key.  Backward passes K and V
 * around again and the gradients dK, dV with them.  K and V are
 * 2 * b*(s/cp) * (kv_heads/tp)*(h/heads) elements on a rank. */
#include "pb_traffic_priv.h"

int pb_traffic_cp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    const pb_layout_t *l = in->l;
    const pb_model_t *m = in->m;
    int cp = l->size[PB_DIM_CP];
    if (cp < 2)
        return PB_OK;
    uint64_t kv = 2 * m->mbs * (m->seq / (uint64_t)cp) *
                  (m->kv_heads / (uint64_t)l->size[PB_DIM_TP]) * pb_model_head_dim(m) * in->e;
    uint64_t count = (uint64_t)(cp - 1) * in->layers * in->micro;
    /* each step's transfer hides behind the attention of the block in hand */
    pb_pat_op_t o = pb_tr_op(PB_STRAT_CP, PB_SENDRECV, PB_GK_CP, cp, kv, m->dtype, count,
                             PB_PH_FWD, 1, PB_P2P_RING_NEXT, "K,V ring step");
    if (pb_op_list_push(out, &o, err))
        return err->code;
    o.phase = PB_PH_BWD;
    o.what = "K,V ring step (backward)";
    if (pb_op_list_push(out, &o, err))
        return err->code;
    o.what = "dK,dV ring step";
    return pb_op_list_push(out, &o, err);
}

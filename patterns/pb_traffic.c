#include "pb_traffic.h"

#include "pb_stages.h"
#include "pb_traffic_priv.h"

pb_pat_op_t pb_tr_op(pb_strategy_t s, pb_coll_t c, pb_gkind_t g, int gsize, uint64_t bytes,
                     pb_dtype_t t, uint64_t count, pb_phase_t ph, int overlap, pb_p2p_t p2p,
                     const char *what)
{
    int layerwise = (g == PB_GK_TP || g == PB_GK_EP || g == PB_GK_CP) && ph != PB_PH_OPT;
    pb_pat_op_t o = {s, c, g, gsize, bytes, t, count, ph, overlap, p2p, 0.0, what, layerwise,
                     PB_STAGE_EVERY};
    return o;
}

uint64_t pb_traffic_micro(const pb_model_t *m, const pb_layout_t *l)
{
    uint64_t dp = (uint64_t)l->size[PB_DIM_DP];
    if (m->gbs == 0) /* automatic: enough micro-batches to fill the pipeline twice */
        return 2 * (uint64_t)l->size[PB_DIM_PP];
    return m->gbs / (m->mbs * dp);
}

uint64_t pb_traffic_stage_layers(const pb_model_t *m, const pb_layout_t *l)
{
    pb_stages_t st;
    pb_stages_of(m, l->size[PB_DIM_PP], &st);
    return pb_stages_max(&st);
}

int pb_traffic_gen(const pb_model_t *m, const pb_layout_t *l, const pb_traffic_cfg_t *cfg,
                   unsigned mask, pb_op_list_t *out, pb_err_t *err)
{
    pb_tr_in_t in;
    in.m = m;
    in.l = l;
    in.cfg = cfg;
    in.tp_strategy = l->sp ? PB_STRAT_SP : PB_STRAT_TP;
    in.e = pb_dtype_size(m->dtype);
    in.act = m->mbs * (m->seq / (uint64_t)l->size[PB_DIM_CP]) * m->hidden * in.e;
    in.micro = pb_traffic_micro(m, l);
    in.layers = pb_traffic_stage_layers(m, l);
    in.moe = m->experts && m->moe_every ? (in.layers + m->moe_every - 1) / m->moe_every : 0;
    if (in.moe > pb_model_moe_layers(m))
        in.moe = pb_model_moe_layers(m);
    unsigned tp = 1u << PB_STRAT_TP | 1u << PB_STRAT_SP;
    if ((mask & tp) && pb_traffic_tp(&in, out, err))
        return err->code;
    if ((mask & 1u << PB_STRAT_PP) && pb_traffic_pp(&in, out, err))
        return err->code;
    if ((mask & 1u << PB_STRAT_DP) && pb_traffic_dp(&in, out, err))
        return err->code;
    if ((mask & 1u << PB_STRAT_EP) && pb_traffic_ep(&in, out, err))
        return err->code;
    if ((mask & 1u << PB_STRAT_CP) && pb_traffic_cp(&in, out, err))
        return err->code;
    return PB_OK;
}

pb_traffic_total_t pb_traffic_total(const pb_op_list_t *l, pb_strategy_t s)
{
    /* every stage's, and the first's and the last's own: no rank holds
     * both ends of a pipeline, so the busiest rank adds the larger end */
    pb_traffic_total_t t[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (size_t i = 0; i < l->n; i++) {
        const pb_pat_op_t *o = &l->ops[i];
        if (o->strategy != s)
            continue;
        pb_traffic_total_t *a = &t[o->stage];
        a->ops += o->count;
        a->msg_bytes += o->bytes * o->count;
        a->wire_bytes += pb_coll_wire_bytes(o->coll, o->group_size, o->bytes) * o->count;
    }
    const pb_traffic_total_t *end =
        t[PB_STAGE_LAST].wire_bytes >= t[PB_STAGE_FIRST].wire_bytes ? &t[PB_STAGE_LAST]
                                                                      : &t[PB_STAGE_FIRST];
    t[0].ops += end->ops, t[0].msg_bytes += end->msg_bytes, t[0].wire_bytes += end->wire_bytes;
    return t[0];
}

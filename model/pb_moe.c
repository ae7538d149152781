#include "pb_moe.h"

#include <string.h>

void pb_moe_cfg_default(pb_moe_cfg_t *c)
{
    memset(c, 0, sizeof *c);
}

double pb_moe_imbalance(const pb_moe_cfg_t *c, double traffic_imbalance)
{
    if (c && c->imbalance > 0)
        return c->imbalance < 1.0 ? 1.0 : c->imbalance;
    return traffic_imbalance > 1.0 ? traffic_imbalance : PB_MOE_IMBALANCE;
}

double pb_moe_rank_imbalance(double f, int ep)
{
    if (ep < 2 || f < 1.0)
        return 1.0;
    return f > (double)ep ? (double)ep : f;
}

double pb_moe_grouped_eff(double m)
{
    /* the last M tile of an expert's tokens is on average half empty
     * (or padded: DeepGEMM's contiguous layout) */
    return m > 0 ? m / (m + PB_MOE_TILE_M / 2.0) : 0.0;
}

double pb_moe_ep_exposed(const pb_moe_cfg_t *c, double comm, double micro, int pp, double fwd,
                         double bwd, int sms)
{
    if (!c || !c->ep_overlap || comm <= 0 || micro < 1)
        return comm > 0 ? comm : 0.0;
    /* one micro-batch's all-to-alls: the forward's dispatch + combine and
     * the backward's, the same bytes each way (pb_traffic_ep.c) */
    double per_f = comm / micro / 2.0, per_b = per_f;
    /* 1F1B's warm-up forwards and cool-down backwards have no partner
     * (pp - 1 on the first stage; with one stage the first forward and
     * the last backward) */
    double alone = pp > 2 ? (double)(pp - 1) : 1.0;
    alone = alone < micro ? alone : micro;
    double pairs = micro - alone;
    double xf = per_f > bwd ? per_f - bwd : 0.0; /* forward's A2A beside the backward */
    double xb = per_b > fwd ? per_b - fwd : 0.0; /* backward's A2A beside the forward */
    double shown = alone * (per_f + per_b) + pairs * (xf + xb);
    double hidden = comm - shown;
    double s = sms > 0 ? PB_MOE_COMM_SMS / (double)sms : 0.0;
    if (s >= 1.0)
        s = 0.0;
    return shown + (hidden > 0 ? hidden * s / (1.0 - s) : 0.0);
}

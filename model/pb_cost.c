#include "pb_cost.h"

#include <math.h>
#include <stddef.h>

/* bus factor of n ranks (nccl-tests'), as a real number */
static double bus_factor(pb_pat_coll_t c, int n)
{
    if (n < 2)
        return 0.0;
    switch (c) {
    case PB_PAT_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case PB_PAT_SENDRECV:
        return 1.0;
    default:
        return (double)(n - 1) / n;
    }
}

static double latency_steps(pb_pat_coll_t c, int n)
{
    if (n < 2 || c == PB_PAT_SENDRECV)
        return 1.0;
    if (c == PB_PAT_ALLREDUCE)
        return log2((double)n);
    return (double)(n - 1);
}

double pb_cost_preset_us(const pb_hw_t *hw, pb_pat_coll_t coll, int n, int net, uint64_t bytes,
                         double imbalance)
{
    if (n < 2)
        return 0.0;
    double gbps = net ? pb_hw_net_gbps_per_gpu(hw) * hw->net_eff : hw->nvlink_gbps * hw->nvlink_eff;
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    double wire = x * bus_factor(coll, n);
    double lat = net ? hw->lat_net_us : hw->lat_intra_us;
    double depth = log2((double)n) / 3.0;
    return lat * (depth > 1.0 ? depth : 1.0) + wire / (gbps * 1e3);
}

/* the measured curve nearest in group size, of the same collective and link */
static const pb_curve_t *nearest(const pb_calib_t *k, pb_pat_coll_t coll, int n, int net)
{
    const pb_curve_t *best = NULL;
    double bd = 0;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        if (c->coll != coll || pb_link_is_net(c->link) != net || c->n < 2)
            continue;
        double d = fabs(log((double)c->n / n));
        if (best == NULL || d < bd - 1e-12 || (fabs(d - bd) <= 1e-12 && c->n > best->n))
            best = c, bd = d;
    }
    return best;
}

double pb_cost_us(const pb_cost_t *c, pb_pat_coll_t coll, int n, int net, uint64_t bytes,
                  double imbalance, int *calibrated)
{
    if (calibrated)
        *calibrated = 0;
    if (n < 2)
        return 0.0;
    if (c->calib) {
        const pb_curve_t *k = nearest(c->calib, coll, n, net);
        double x = (double)bytes;
        if (k == NULL && coll == PB_PAT_ALLTOALLV) {
            k = nearest(c->calib, PB_PAT_ALLTOALL, n, net);
            x *= imbalance > 1.0 ? imbalance : 1.0;
        }
        if (k) {
            double a, b;
            pb_curve_eval(k, (uint64_t)x, &a, &b);
            if (k->n != n) {
                a *= latency_steps(coll, n) / latency_steps(coll, k->n);
                b *= bus_factor(coll, n) / bus_factor(coll, k->n);
            }
            if (calibrated)
                *calibrated = 1;
            return a + b;
        }
    }
    return pb_cost_preset_us(c->hw, coll, n, net, bytes, imbalance);
}

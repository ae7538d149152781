#include "pb_cost.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../core/pb_link.h"

static double latency_steps(pb_coll_t c, int n)
{
    if (n < 2 || c == PB_SENDRECV)
        return 1.0;
    if (c == PB_ALLREDUCE)
        return log2((double)n);
    return (double)(n - 1);
}

double pb_cost_preset_us(const pb_hw_t *hw, pb_coll_t coll, int n, int net, uint64_t bytes,
                         double imbalance)
{
    if (n < 2)
        return 0.0;
    double gbps = net ? pb_hw_net_gbps_per_gpu(hw) * hw->net_eff : hw->nvlink_gbps * hw->nvlink_eff;
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    double wire = x * pb_busbw_factor(coll, n);
    double lat = net ? hw->lat_net_us : hw->lat_intra_us;
    double depth = log2((double)n) / 3.0;
    return lat * (depth > 1.0 ? depth : 1.0) + wire / (gbps * 1e3);
}

double pb_cost_preset_rail_us(const pb_hw_t *hw, pb_coll_t coll, int n, int per_node,
                              uint64_t bytes, double imbalance)
{
    if (n < 2)
        return 0.0;
    double nic = pb_hw_net_gbps_per_gpu(hw) * hw->net_eff;
    int share = coll == PB_ALLTOALL || coll == PB_ALLTOALLV || per_node < 1 ? 1 : per_node;
    double gbps = nic * share;
    double nvl = hw->nvlink_gbps * hw->nvlink_eff;
    gbps = gbps < nvl ? gbps : nvl;
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    double depth = log2((double)n) / 3.0;
    return hw->lat_net_us * (depth > 1.0 ? depth : 1.0) + x * pb_busbw_factor(coll, n) / (gbps * 1e3);
}

/* How well curve c answers an operation of type dt (0 best); curves of a
 * collective that does not reduce all answer equally (they move bytes). */
enum { RANK_OWN, RANK_UNTYPED, RANK_SAME_SIZE, RANK_OTHER, RANK_NONE };

static int dtype_rank(const pb_curve_t *c, pb_coll_t coll, pb_dtype_t dt)
{
    if (!pb_coll_reduces(coll))
        return RANK_OWN;
    if (c->any_dtype)
        return RANK_UNTYPED;
    if (c->dtype == dt)
        return RANK_OWN;
    return pb_dtype_size(c->dtype) == pb_dtype_size(dt) ? RANK_SAME_SIZE : RANK_OTHER;
}

/* curves of one type form a family over group sizes: the family key */
static int family(const pb_curve_t *c, pb_coll_t coll)
{
    return !pb_coll_reduces(coll) || c->any_dtype ? PB_DTYPE_COUNT : (int)c->dtype;
}

static int usable(const pb_curve_t *c, pb_coll_t coll, int net)
{
    return c->coll == coll && pb_link_is_net(c->link) == net && c->n >= 2;
}

/* the curve of family fam and rank `rank` nearest in group size, of the
 * same collective and link, among those whose measured range reaches x
 * (pb_curve_reach): a curve that does not reach it gives way to the next
 * one, never a guess */
static const pb_curve_t *nearest(const pb_calib_t *k, pb_coll_t coll, pb_dtype_t dt,
                                 int rank, int fam, int n, int net, uint64_t x)
{
    const pb_curve_t *best = NULL;
    double bd = 0;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        if (!usable(c, coll, net) || dtype_rank(c, coll, dt) != rank || family(c, coll) != fam ||
            pb_curve_reach(c, x) == PB_REACH_OUT)
            continue;
        double d = fabs(log((double)c->n / n));
        if (best == NULL || d < bd - 1e-12 || (fabs(d - bd) <= 1e-12 && c->n > best->n))
            best = c, bd = d;
    }
    return best;
}

/* the curve's time at x for n ranks, scaled from its own group size */
static double scaled(const pb_curve_t *k, pb_coll_t coll, int n, uint64_t x)
{
    double a, b;
    pb_curve_eval(k, x, &a, &b);
    if (k->n != n) {
        a *= latency_steps(coll, n) / latency_steps(coll, k->n);
        b *= pb_busbw_factor(coll, n) / pb_busbw_factor(coll, k->n);
    }
    return a + b;
}

/* The best-ranked curves that reach x: their time (the slowest family
 * among equals); *near: one of them extrapolated; *passed: a better rank
 * had curves, none reaching x.  RANK_NONE when no curve of coll on that
 * link reaches x. */
static int lookup(const pb_calib_t *k, pb_coll_t coll, pb_dtype_t dt, int n, int net,
                  uint64_t x, double *t, int *near, int *passed)
{
    int best = RANK_NONE;
    for (size_t i = 0; i < k->n; i++) {
        int r = usable(&k->c[i], coll, net) ? dtype_rank(&k->c[i], coll, dt) : RANK_NONE;
        best = r < best ? r : best;
    }
    for (int rank = best; rank < RANK_NONE; rank++) {
        int found = 0;
        *t = 0, *near = 0;
        for (int fam = 0; fam <= PB_DTYPE_COUNT; fam++) {
            const pb_curve_t *c = nearest(k, coll, dt, rank, fam, n, net, x);
            if (c) {
                double tc = scaled(c, coll, n, x);
                *t = tc > *t ? tc : *t;
                *near |= pb_curve_reach(c, x) == PB_REACH_NEAR;
                found = 1;
            }
        }
        if (found) {
            *passed = rank > best;
            return rank;
        }
    }
    return RANK_NONE;
}

/* The measured sizes of every curve of coll on that link, smallest to
 * largest; 0 when there is none. */
static int span(const pb_calib_t *k, pb_coll_t coll, int net, uint64_t *lo, uint64_t *hi)
{
    int any = 0;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        if (!usable(c, coll, net) || c->npieces <= 0)
            continue;
        uint64_t l = pb_curve_lo(c), h = pb_curve_hi(c);
        if (!any || l < *lo)
            *lo = l;
        if (!any || h > *hi)
            *hi = h;
        any = 1;
    }
    return any;
}

/* bytes x imbalance as a size: all-to-all-v's hottest share */
static uint64_t hottest(uint64_t bytes, double imbalance)
{
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    return x < 1.8e19 ? (uint64_t)x : UINT64_MAX;
}

double pb_cost_src_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n,
                      int net, uint64_t bytes, double imbalance, pb_cost_src_t *src)
{
    pb_cost_src_t dummy;
    if (src == NULL)
        src = &dummy;
    memset(src, 0, sizeof *src);
    src->cal = PB_CAL_PRESET;
    src->asked = bytes;
    if (n < 2)
        return 0.0;
    if (c->calib) {
        const pb_calib_t *k = c->calib;
        uint64_t x = bytes;
        double t = 0;
        int near = 0, passed = 0;
        int rank = lookup(k, coll, dtype, n, net, x, &t, &near, &passed);
        if (rank == RANK_NONE && coll == PB_ALLTOALLV) {
            uint64_t lo, hi;
            int own = span(k, coll, net, &lo, &hi); /* its own curves, not reaching */
            x = hottest(bytes, imbalance);
            rank = lookup(k, PB_ALLTOALL, dtype, n, net, x, &t, &near, &passed);
            passed |= own;
        }
        if (rank != RANK_NONE) {
            src->cal = rank == RANK_OWN ? PB_CAL_OWN : PB_CAL_OTHER;
            src->extrapolated = near;
            src->passed = passed;
            src->asked = x;
            return t;
        }
        /* measured, but not at this size: the preset, said so */
        if (span(k, coll, net, &src->lo, &src->hi)) {
            src->out_of_range = 1;
        } else if (coll == PB_ALLTOALLV && span(k, PB_ALLTOALL, net, &src->lo, &src->hi)) {
            src->out_of_range = 1;
            src->asked = hottest(bytes, imbalance);
        }
    }
    return pb_cost_preset_us(c->hw, coll, n, net, bytes, imbalance);
}

double pb_cost_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n, int net,
                  uint64_t bytes, double imbalance, int *calibrated)
{
    pb_cost_src_t src;
    double t = pb_cost_src_us(c, coll, dtype, n, net, bytes, imbalance, &src);
    if (calibrated)
        *calibrated = src.cal;
    return t;
}

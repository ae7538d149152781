#include "pb_gemm_fit.h"

#include <stdint.h>
#include <stdlib.h>

#include "../util/pb_stats.h"
#include "pb_kernels.h"

static double model_s(const pb_hw_t *hw, double share, const pb_gemm_meas_t *r)
{
    pb_hw_t h = *hw;
    h.gemm_eff = share;
    h.sustained = 1.0; /* a measured GEMM runs alone */
    return pb_gemm_s(&h, r->m, r->n, r->k, 1.0);
}

/* bisection steps: the bracket [1e-3, 1] halved 60 times is below a
 * double's resolution of the share */
#define PB_GEMM_FIT_STEPS 60
/* a share 2 % lower that leaves the time as it is: the time does not
 * depend on the share there, which is then not determined */
#define PB_GEMM_FIT_PROBE 0.98

double pb_gemm_implied_eff(const pb_hw_t *hw, const pb_gemm_meas_t *r)
{
    if (!(r->tflops > 0) || r->m < 1 || r->n < 1 || r->k < 1)
        return -1.0;
    double t = 2.0 * r->m * r->n * r->k / (r->tflops * 1e12);
    /* at the HBM floor at the preset's own share: the time says how fast
     * the operands stream, not the share (a small-M GEMM: its compute
     * term falls with M no faster than its bytes do) */
    if (model_s(hw, hw->gemm_eff, r) <= model_s(hw, 1.0, r) * (1.0 + 1e-9))
        return -1.0;
    if (model_s(hw, 1.0, r) >= t)
        return 1.0; /* faster than the model allows: the best it can say */
    /* pb_gemm_s falls as the share grows (until the floor): bisect */
    double lo = 1e-3, hi = 1.0;
    if (model_s(hw, lo, r) <= t)
        return lo;
    for (int i = 0; i < PB_GEMM_FIT_STEPS; i++) {
        double mid = 0.5 * (lo + hi);
        if (model_s(hw, mid, r) > t)
            lo = mid;
        else
            hi = mid;
    }
    double g = 0.5 * (lo + hi);
    /* the solution sits where the time no longer depends on the share */
    if (model_s(hw, g * PB_GEMM_FIT_PROBE, r) <= t * (1.0 + 1e-9))
        return -1.0;
    return g;
}

int pb_gemm_fit(const pb_hw_t *hw, const pb_gemm_meas_t *rows, size_t n, pb_gemm_fit_t *out,
                pb_err_t *err)
{
    out->gemm_eff = hw->gemm_eff;
    out->used = out->above = 0;
    /* no room for the shares is out of memory: returned as "no row
     * informs the share" it read as every row bound by HBM */
    double *v = n <= SIZE_MAX / sizeof *v ? malloc((n ? n : 1) * sizeof *v) : NULL;
    if (v == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory fitting the share to %zu GEMM rows",
                          n);
    for (size_t i = 0; i < n; i++) {
        double g = pb_gemm_implied_eff(hw, &rows[i]);
        if (g < 0)
            continue;
        out->above += g >= 1.0;
        v[out->used++] = g;
    }
    if (out->used) {
        pb_stats_sort(v, out->used);
        out->gemm_eff = pb_quantile_sorted(v, out->used, 0.5);
    }
    free(v);
    return PB_OK;
}

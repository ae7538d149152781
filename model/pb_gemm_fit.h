/* pb_gemm_fit.h - a GPU's GEMM efficiency from its own measurements.
 *
 * The kernel model times a GEMM of M x N x K as its FLOPs at the preset's
 * best-shape share of the peak (pb_hw_t.gemm_eff) times the shape's losses
 * (pb_gemm_eff), never faster than its bytes through HBM (pb_gemm_s).
 * Rows of `parbench gemm` measured on the user's GPU replace the preset's
 * best-shape share: each row implies the share that makes pb_gemm_s equal
 * its measured time, and the median of those is the fit (robust to one
 * odd shape).  The shape losses stay the model's, so the layers' other
 * shapes follow from the measured ones.  Rows the model times at the HBM
 * floor say nothing about the share and are left out. */
#ifndef PB_GEMM_FIT_H
#define PB_GEMM_FIT_H

#include <stddef.h>

#include "pb_hw.h"

typedef struct pb_gemm_meas {
    double m, n, k;
    double tflops; /* measured, dense bf16 */
} pb_gemm_meas_t;

typedef struct pb_gemm_fit {
    double gemm_eff; /* the fitted best-shape share */
    size_t used;     /* rows that informed it */
    size_t above;    /* rows faster than the model allows at share 1 (taken as 1) */
} pb_gemm_fit_t;

/* The share row r implies on hw (its gemm_eff ignored), or a negative
 * value when the model's time there does not depend on it (HBM floor). */
double pb_gemm_implied_eff(const pb_hw_t *hw, const pb_gemm_meas_t *r);

/* Median over the informative rows; used 0 (and gemm_eff the preset's)
 * when none is.  PB_ERUNTIME "out of memory ..." when the n rows' shares
 * do not fit in memory (the rows then unread). */
int pb_gemm_fit(const pb_hw_t *hw, const pb_gemm_meas_t *rows, size_t n, pb_gemm_fit_t *out,
                pb_err_t *err);

#endif

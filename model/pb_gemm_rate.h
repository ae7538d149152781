/* pb_gemm_rate.h - how fast one GPU runs a GEMM of a given shape, for the
 * kernel-by-kernel compute model (pb_kernels.h): the share of the dense
 * bf16 peak a GEMM of M x N x K reaches, and its time with the HBM floor of
 * its operands.  doc/MODEL.md ("GEMM") gives the sources of every number. */
#ifndef PB_GEMM_RATE_H
#define PB_GEMM_RATE_H

#include "pb_hw.h"

/* Launch floor of a kernel, microseconds: the host-side cost of one launch
 * is 3.0 us through the raw driver (cuLaunchKernel) and 4.7 us through
 * Triton's launcher (meta-pytorch/tritonbench PR #1017, measured on a
 * GB200); 4 us lies between the two (doc/MODEL.md, "GEMM"). */
#define PB_KERNEL_US 4.0

/* Fraction of the dense bf16 peak a GEMM of M x N x K reaches on `hw`:
 * the preset's best-shape share (gemm_eff, reached at 8192^3 and above)
 * times a loss for each dimension, f(d) / f(8192) with f(d) = d / (d +
 * 150), capped at 1.  Continuous and non-decreasing in M, N and K; 0 for
 * a dimension <= 0. */
double pb_gemm_eff(const pb_hw_t *hw, double M, double N, double K);
/* seconds for `batch` GEMMs of M x N x K: the FLOPs at that efficiency,
 * never faster than their operands' bytes through HBM (the floor that
 * rules small-M GEMMs), plus one launch; the achieved rate is
 * non-decreasing in M, N and K */
double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch);

#endif

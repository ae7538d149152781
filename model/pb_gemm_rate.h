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
/* the shape's part of it: pb_gemm_eff / gemm_eff, 1 at the best shape */
double pb_gemm_shape(double M, double N, double K);
/* seconds for `flops` of GEMM work at the preset's best-shape share of
 * the bf16 peak (fp8: of the fp8 peak) times `shape` times the sustained
 * share, never faster than `bytes` through HBM, plus one launch: the one
 * timing rule of every GEMM the model runs (dense, fp8, grouped) */
double pb_gemm_time_s(const pb_hw_t *hw, int fp8, double flops, double shape, double bytes);
/* seconds for `batch` GEMMs of M x N x K: the FLOPs at that efficiency,
 * never faster than their operands' bytes through HBM (the floor that
 * rules small-M GEMMs), plus one launch; the achieved rate is
 * non-decreasing in M, N and K */
double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch);
/* seconds for `batch` fp8 GEMMs of M x N x K (Transformer Engine, E4M3 /
 * E5M2 operands, bf16 output): hw->fp8_tflops at the preset's best-shape
 * fp8 share (fp8_gemm_eff) with the same shape losses as bf16, never
 * faster than 1 B per operand element and 2 B per output element through
 * HBM */
double pb_gemm_fp8_s(const pb_hw_t *hw, double M, double N, double K, double batch);

#endif

/* pb_gemm.h - how fast one GPU runs a GEMM of a given shape, for the
 * kernel-by-kernel compute model (pb_kernels.h): the share of the dense
 * bf16 peak a GEMM of M x N x K reaches, and its time with the HBM floor of
 * its operands.  doc/MODEL.md gives the sources of every number. */
#ifndef PB_GEMM_H
#define PB_GEMM_H

#include "pb_hw.h"

/* Launch and synchronisation floor of a kernel: a few microseconds each
 * (COMPUTE-AND-OVERLAP.md 3.1, "budget a few us per kernel launch"). */
#define PB_KERNEL_US 4.0

/* Fraction of the dense bf16 peak a GEMM of M x N x K reaches on `hw`:
 * the preset's best-shape share, a loss for each short dimension
 * (d / (d + 192): prologue, epilogue and operand reuse of narrow tiles;
 * M only from 256 up, below which the HBM floor rules)
 * and wave quantization over the SMs. */
double pb_gemm_eff(const pb_hw_t *hw, double M, double N, double K);
/* seconds for `batch` GEMMs of M x N x K: the FLOPs at that efficiency,
 * never faster than their operands' bytes through HBM */
double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch);

#endif

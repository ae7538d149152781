#include "pb_gemm_rate.h"

/* The narrow-dimension loss f(d) = d / (d + PB_GEMM_DIM0): a tile's
 * prologue, epilogue and pipeline fill are paid per output tile and per
 * K loop, so a short dimension spends a larger share of its time there.
 * PB_GEMM_DIM0 is the least-squares fit of c f(M) f(N) f(K) to the 122
 * bf16 forward and input-gradient GEMMs SimuMax measured on an A100
 * (MooreThreads/SimuMax configs/system/a100_pcie.json); the fit is
 * bench/perf/gemm_dim0_fit.sh, which prints 150 (doc/MODEL.md, "GEMM"). */
#define PB_GEMM_DIM0 150.0
/* The cube side at which a GEMM runs at the preset's best-shape rate
 * (gemm_eff): a cuBLAS bf16 8192^3 on an H200 runs at 788 TFLOP/s
 * (`parbench gemm`, doc/gpus.md), the best shape ml-engineering's MAMF
 * search found on H100/H200 at 794.5, within 1 %.  The losses are taken
 * relative to this shape and never lift a GEMM above the best shape. */
#define PB_GEMM_REF_DIM 8192.0
/* Operand bytes of a bf16 GEMM reach at most this share of HBM bandwidth
 * (vLLM benchmarks/kernels, PR #49363: torch bf16 on H100, N 12288, K
 * 5376, M = 16-128 at 85-87 % of the HBM roofline). */
#define PB_GEMM_HBM_EFF 0.85

static double dimf(double d)
{
    return d / (d + PB_GEMM_DIM0);
}

/* Continuous and non-decreasing in each of M, N, K: a product of
 * increasing factors, capped at the best shape.  No wave quantization:
 * stream-K decompositions share the last wave's K iterations among idle
 * SMs, which removes the tile-count steps over 32,824 measured shapes
 * (Osama et al., "Stream-K", PPoPP 2023), and CUTLASS ships them for
 * Hopper (include/cutlass/gemm/kernel/sm90_tile_scheduler_stream_k.hpp);
 * a step model would also break the continuity the step model needs.
 * Small-M GEMMs are held by the HBM floor of pb_gemm_s instead
 * (doc/MODEL.md, "GEMM"). */
double pb_gemm_shape(double M, double N, double K)
{
    if (M <= 0 || N <= 0 || K <= 0)
        return 0.0;
    double ref = dimf(PB_GEMM_REF_DIM);
    double loss = (dimf(M) / ref) * (dimf(N) / ref) * (dimf(K) / ref);
    return loss < 1.0 ? loss : 1.0;
}

double pb_gemm_eff(const pb_hw_t *hw, double M, double N, double K)
{
    return hw->gemm_eff * pb_gemm_shape(M, N, K);
}

double pb_gemm_time_s(const pb_hw_t *hw, int fp8, double flops, double shape, double bytes)
{
    double peak = fp8 ? hw->fp8_tflops * hw->fp8_gemm_eff : hw->bf16_tflops * hw->gemm_eff;
    double t = flops / (peak * 1e12 * shape * hw->sustained);
    double floor = bytes / (hw->hbm_tbps * 1e12 * PB_GEMM_HBM_EFF);
    return (t > floor ? t : floor) + PB_KERNEL_US * 1e-6;
}

/* The achieved rate flops / time is non-decreasing in M, N and K: per
 * FLOP the compute term is 1 / (peak x eff) (eff non-decreasing), the HBM
 * term (1/M + 1/N + 1/K) / bandwidth and the launch term 1 / flops, each
 * non-increasing, and max and + keep that. */
double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch)
{
    if (batch <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 0.0;
    return pb_gemm_time_s(hw, 0, 2.0 * M * N * K * batch, pb_gemm_shape(M, N, K),
                          2.0 * (M * K + K * N + M * N) * batch);
}

double pb_gemm_fp8_s(const pb_hw_t *hw, double M, double N, double K, double batch)
{
    if (batch <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 0.0;
    /* operands of 1 B, a bf16 output */
    return pb_gemm_time_s(hw, 1, 2.0 * M * N * K * batch, pb_gemm_shape(M, N, K),
                          (M * K + K * N + 2.0 * M * N) * batch);
}

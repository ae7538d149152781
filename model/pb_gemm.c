#include "pb_gemm.h"

#include <math.h>

/* The narrow-dimension loss d / (d + PB_GEMM_DIM0): fitted by eye to
 * SimuMax's 183 measured A100 shapes (MooreThreads/SimuMax
 * configs/system/a100_pcie.json, accurate_efficient_factor of 312 TFLOP/s:
 * min dim >= 3072 about 0.74 of peak, 1536-2048 0.70, 768-1024 0.62) and to the EleutherAI cookbook's attention-score BMM
 * (K = 128: 130 of 312 TFLOP/s, 1.3e); one constant for every GPU. */
#define PB_GEMM_DIM0 192.0
/* Operand bytes of a bf16 GEMM reach at most this share of HBM bandwidth
 * (vLLM small-M H100 sweep: 85-87 % of the roofline, 1.3c). */
#define PB_GEMM_HBM_EFF 0.85

static double dimf(double d)
{
    return d / (d + PB_GEMM_DIM0);
}

/* output tiles of tm x tn of `batch` GEMMs filling waves of `sms`
 * thread blocks */
static double wave_fill(double M, double N, double batch, double tm, double tn, int sms)
{
    double tiles = ceil(M / tm) * ceil(N / tn) * batch;
    double waves = ceil(tiles / (double)sms);
    return tiles / (waves * (double)sms);
}

static double eff_batch(const pb_hw_t *hw, double M, double N, double K, double batch)
{
    if (M < 1 || N < 1 || K < 1)
        return hw->gemm_eff;
    /* cuBLAS picks among tile shapes: the large tile (the guide's most
     * efficient, 256x128) or half of it, a little less efficient per
     * tile (NVIDIA Matrix Multiplication guide 2.3), whichever fills its
     * waves better */
    double big = wave_fill(M, N, batch, hw->tile_m, hw->tile_n, hw->sms);
    double small = 0.9 * wave_fill(M, N, batch, hw->tile_m / 2.0, hw->tile_n, hw->sms);
    double fill = big > small ? big : small;
    /* M (tokens) loses like N and K down to 256; below, GEMMs run at the
     * HBM roofline of their weights (vLLM's H100 sweep: M = 16-128 at
     * 85-87 % of it, COMPUTE-AND-OVERLAP.md 1.3c), the floor of
     * pb_gemm_s, so no M loss is charged there */
    double m_loss = M >= 256.0 ? dimf(M) : 1.0;
    return hw->gemm_eff * m_loss * dimf(N) * dimf(K) * fill;
}

double pb_gemm_eff(const pb_hw_t *hw, double M, double N, double K)
{
    return eff_batch(hw, M, N, K, 1.0);
}

double pb_gemm_s(const pb_hw_t *hw, double M, double N, double K, double batch)
{
    if (batch <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 0.0;
    double flops = 2.0 * M * N * K * batch;
    double t = flops / (hw->bf16_tflops * 1e12 * eff_batch(hw, M, N, K, batch));
    double bytes = 2.0 * (M * K + K * N + M * N) * batch;
    double floor = bytes / (hw->hbm_tbps * 1e12 * PB_GEMM_HBM_EFF);
    return (t > floor ? t : floor) + PB_KERNEL_US * 1e-6;
}

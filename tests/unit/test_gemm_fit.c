/* test_gemm_fit.c - model/pb_gemm_fit: the GEMM share read back from
 * measured rows. */
#include "model/pb_gemm_fit.h"

#include <stdint.h>
#include <string.h>

#include "model/pb_kernels.h"
#include "pb_test.h"

int main(void)
{
    pb_hw_t hw;
    pb_err_t err;
    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    /* By hand, 8192^3 bf16 on an H100: the shape the preset's share is
     * taken at (pb_gemm_rate.c), so its factor is 1.  Measured at 600
     * TFLOP/s: 2 x 8192^3 = 1.0995e12 FLOP in 1.83252 ms, less the 4 us
     * launch floor, is 601.313 TFLOP/s of GEMM, so the share is 601.313 /
     * 989 = 0.608001 (the HBM floor, 3 x 8192^2 x 2 B / (3.35 TB/s x
     * 0.85) = 0.14 ms, is far below). */
    pb_gemm_meas_t big = {8192, 8192, 8192, 600.0};
    CHECK_NEAR(pb_gemm_implied_eff(&hw, &big), 0.608001, 2e-6);
    /* a shape the model times at the HBM floor at the preset's share says
     * nothing about the share: M = 16 tokens, N = K = 8192 streams
     * 2 x (16 x 8192 x 2 + 8192^2) B = 134.7 MB in 47.3 us at 3.35 TB/s x
     * 0.85, while its FLOPs at 0.803 x f(16)/f(8192) = 0.803 x 0.09815 of
     * 989 TFLOP/s take 27.6 us */
    pb_gemm_meas_t thin = {16, 8192, 8192, 50.0};
    CHECK(pb_gemm_implied_eff(&hw, &thin) < 0);
    /* faster than the model's best: share 1 */
    pb_gemm_meas_t fast = {8192, 8192, 8192, 989.0};
    CHECK(pb_gemm_implied_eff(&hw, &fast) == 1.0);
    /* round trip: rows timed by the model itself at share 0.55, over the
     * layer shapes of a Llama 3 70B at tp 8 (QKV, O, MLP up, MLP down for
     * 8192 tokens), give 0.55 back; an odd row (half speed) and a floor-
     * bound one do not move the median */
    double shapes[4][3] = {{8192, 1280, 8192}, {8192, 8192, 1024}, {8192, 7168, 8192},
                           {8192, 8192, 3584}};
    pb_gemm_meas_t rows[6];
    pb_hw_t at = hw;
    at.gemm_eff = 0.55;
    at.sustained = 1.0; /* a measured GEMM runs alone, not in a step */
    for (int i = 0; i < 4; i++) {
        double M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
        rows[i] = (pb_gemm_meas_t){M, N, K, 2.0 * M * N * K / pb_gemm_s(&at, M, N, K, 1.0) / 1e12};
    }
    rows[4] = rows[0];
    rows[4].tflops *= 0.5;
    rows[5] = thin;
    pb_gemm_fit_t fit;
    CHECK(pb_gemm_fit(&hw, rows, 6, &fit, &err) == PB_OK);
    CHECK(fit.used == 5 && fit.above == 0);
    CHECK_NEAR(fit.gemm_eff, 0.55, 1e-6);
    /* nothing informative: the preset stays */
    CHECK(pb_gemm_fit(&hw, &thin, 1, &fit, &err) == PB_OK);
    CHECK(fit.used == 0 && fit.gemm_eff == hw.gemm_eff);
    /* issue 32: rows whose shares no memory holds (SIZE_MAX of them: no
     * array of that many doubles can exist) are out of memory, never a
     * fit with no informative row, which --gemm-csv reported as "every
     * GEMM row is bound by HBM"; nothing is read from the rows */
    pb_err_clear(&err);
    CHECK(pb_gemm_fit(&hw, &thin, SIZE_MAX, &fit, &err) == PB_ERUNTIME);
    CHECK(strstr(err.msg, "out of memory") != NULL && fit.used == 0);
    PB_TEST_END("unit_gemm_fit");
}

/* test_gemm_eff.c - model/pb_gemm: the GEMM efficiency is continuous and
 * non-decreasing in M, N and K, the achieved rate flops / time is
 * non-decreasing in each, and one value worked by hand. */
#include "model/pb_gemm_rate.h"

#include "pb_test.h"

#define DMAX 65536.0

/* the dimension `which` (0 M, 1 N, 2 K) set to d, the others from o */
static double eff_at(const pb_hw_t *hw, const double o[3], int which, double d)
{
    double v[3] = {o[0], o[1], o[2]};
    v[which] = d;
    return pb_gemm_eff(hw, v[0], v[1], v[2]);
}

static double rate_at(const pb_hw_t *hw, const double o[3], int which, double d)
{
    double v[3] = {o[0], o[1], o[2]};
    v[which] = d;
    return 2.0 * v[0] * v[1] * v[2] / pb_gemm_s(hw, v[0], v[1], v[2], 1.0);
}

/* Continuity: no jump anywhere from 1 to 65536.  One integer step is itself
 * a large relative move below a few hundred (1 -> 2 doubles d, and any
 * loss that vanishes at d -> 0 must move with it), so there the sweep steps
 * by d x 1e-4, a continuous function's neighbourhood, and from 512 up by
 * 1: f(d) = d / (d + 150) moves by 150 / (d (d + 151)) < 4.5e-4 per step
 * there, so a change above 1e-3 can only be a jump (the old M >= 256
 * threshold was a factor 256/448, a wave-quantization step up to 2x). */
static int jumps(const pb_hw_t *hw, const double o[3], int which)
{
    int bad = 0;
    for (double d = 1.0; d < DMAX; d = d < 512.0 ? d * 1.0001 : d + 1.0) {
        double next = d < 512.0 ? d * 1.0001 : d + 1.0;
        double a = eff_at(hw, o, which, d), b = eff_at(hw, o, which, next);
        bad += !(fabs(b - a) <= 1e-3 * a) || !(b >= a);
    }
    return bad;
}

/* The achieved rate never falls as a dimension grows by 1, from 1 to
 * 65536 (pb_gemm_rate.c: each per-FLOP term of the time is non-increasing). */
static int rate_drops(const pb_hw_t *hw, const double o[3], int which)
{
    int bad = 0;
    double prev = rate_at(hw, o, which, 1.0);
    for (double d = 2.0; d <= DMAX; d += 1.0) {
        double r = rate_at(hw, o, which, d);
        bad += !(r >= prev * (1.0 - 1e-12));
        prev = r;
    }
    return bad;
}

int main(void)
{
    pb_hw_t a, h;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("a100", &a, &err) == PB_OK && pb_hw_preset("h100", &h, &err) == PB_OK);

    /* the other two dimensions at a thin, a layer-sized and a huge value */
    const double others[][3] = {{1, 1, 1}, {128, 128, 128}, {4096, 4096, 4096},
                                {8192, 1024, 65536}, {65536, 65536, 65536}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        for (int w = 0; w < 3; w++) {
            CHECK(jumps(&a, others[i], w) == 0);
            CHECK(rate_drops(&a, others[i], w) == 0);
            CHECK(rate_drops(&h, others[i], w) == 0); /* another HBM/peak ridge */
        }

    /* By hand, 4096^3 on the A100 preset (gemm_eff 0.869 = 271.2 / 312):
     * f(d) = d / (d + 150); each dimension's loss against the 8192 cube is
     * f(4096) / f(8192) = (4096/4246) / (8192/8342) = 8342 / 8492 =
     * 0.9823363, cubed 0.9479395, so the share is 0.869 x 0.9479395 =
     * 0.8237594.  Time: 2 x 4096^3 = 1.374390e11 FLOP / (312e12 x
     * 0.8237594) = 534.755 us (the HBM floor, 3 x 4096^2 x 2 B / (2.039
     * TB/s x 0.85) = 58.1 us, is below), + 4 us launch = 538.755 us for
     * the GEMM alone (sustained 1); in a training step at the A100's
     * sustained share 0.84, 534.755 / 0.84 + 4 = 640.613 us. */
    CHECK_NEAR(pb_gemm_eff(&a, 4096, 4096, 4096), 0.8237594, 1e-6);
    CHECK_NEAR(pb_gemm_s(&a, 4096, 4096, 4096, 1), (534.755 / a.sustained + 4) * 1e-6, 1e-6);
    CHECK_NEAR(a.sustained, 0.84, 1e-12);
    pb_hw_t alone = a;
    alone.sustained = 1.0;
    CHECK_NEAR(pb_gemm_s(&alone, 4096, 4096, 4096, 1), 538.755e-6, 1e-6);
    /* the best shape and beyond: the preset's share, never above it */
    CHECK_NEAR(pb_gemm_eff(&h, 8192, 8192, 8192), 0.803, 1e-12);
    CHECK_NEAR(pb_gemm_eff(&h, 65536, 65536, 65536), 0.803, 1e-12);
    /* no wave quantization: `batch` GEMMs take batch x the work of one and
     * one launch, whatever the tile count: 2 x (538.755 - 4) + 4 us */
    CHECK_NEAR(pb_gemm_s(&alone, 4096, 4096, 4096, 2), (2 * 534.755 + 4) * 1e-6, 1e-6);
    /* a non-positive dimension does no work */
    CHECK(pb_gemm_eff(&a, 0, 4096, 4096) == 0.0 && pb_gemm_s(&a, 4096, 0, 4096, 1) == 0.0);
    PB_TEST_END("unit_gemm_eff");
}

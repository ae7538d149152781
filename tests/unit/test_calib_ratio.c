/* Issue 50, the calibration: a reduction type measured at one size moved
 * along another type's curve with the ratio measured where both were
 * (pb_calib_dtype_ratio, pb_cost.h), and said so; a piece whose times are
 * equal fitted as the latency it is, not a bandwidth of rounding noise.
 * Every expected value is worked from the points given below. */
#include <math.h>
#include <string.h>

#include "pb_test.h"
#include "model/pb_calib.h"
#include "model/pb_cost.h"
#include "model/pb_step.h"

#define MIB (UINT64_C(1) << 20)

/* A main job's rows as calibrate gets them: float all-reduces of 8 ranks
 * in one node from 8 B to 64 MiB, every 2x, on the law 20 us + x / 50
 * GB/s (2e-5 us/B), so one piece fits them exactly; bf16 at 1 MiB only,
 * 3.3x float's time there (Open MPI reduces bf16 in software). */
static void main_job(pb_calib_t *k, uint64_t bf16_at)
{
    pb_meas_t pts[32];
    size_t n = 0;
    for (uint64_t x = 8; x <= 64 * MIB; x *= 2) {
        pb_meas_t p = {PB_ALLREDUCE, 8, "NV18", PB_F32, x, 20.0 + 2e-5 * (double)x, 8};
        pts[n++] = p;
    }
    pb_meas_t b = {PB_ALLREDUCE, 8, "NV18", PB_BF16, bf16_at,
                   3.3 * (20.0 + 2e-5 * (double)bf16_at), 8};
    pts[n++] = b;
    pb_err_t err;
    pb_err_clear(&err);
    pb_calib_init(k);
    CHECK(pb_calib_fit(pts, n, 0.05, k, &err) == PB_OK);
    CHECK(k->n == 2);
}

/* bf16 at 8 MiB: its one point does not reach it, float's curve does,
 * times bf16's time over float's at 1 MiB: 3.3 x (20 + 2e-5 x 8388608) =
 * 3.3 x 187.77216 = 619.648128 us.  Before: float's 187.77216 as is - 8x
 * the bytes in 1.4x bf16's 1 MiB time, though bf16 was 3.3x float. */
static void moved_with_ratio(void)
{
    pb_calib_t k;
    main_job(&k, MIB);
    pb_hw_t hw;
    pb_err_t err;
    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    pb_cost_t cost = {&hw, &k, 0};
    pb_cost_src_t s;
    double t = pb_cost_src_us(&cost, PB_ALLREDUCE, PB_BF16, 8, 0, 8 * MIB, 0, &s);
    CHECK_NEAR(t, 3.3 * (20.0 + 2e-5 * 8388608.0), 1e-6);
    CHECK(s.cal == PB_CAL_OTHER && s.passed && !s.transferred);
    CHECK(s.ratio_at == MIB);
    CHECK_NEAR(s.dtype_ratio, 3.3, 1e-9);
    /* bf16 at its own size: its own point, no ratio */
    t = pb_cost_src_us(&cost, PB_ALLREDUCE, PB_BF16, 8, 0, MIB, 0, &s);
    CHECK_NEAR(t, 3.3 * (20.0 + 2e-5 * 1048576.0), 1e-9);
    CHECK(s.cal == PB_CAL_OWN && s.ratio_at == 0 && s.dtype_ratio == 0);
    /* float is float's: no ratio */
    t = pb_cost_src_us(&cost, PB_ALLREDUCE, PB_F32, 8, 0, 8 * MIB, 0, &s);
    CHECK_NEAR(t, 20.0 + 2e-5 * 8388608.0, 1e-6);
    CHECK(s.cal == PB_CAL_OWN && s.ratio_at == 0);
    /* f16 (2 bytes, as bf16) was never measured: it borrows float's
     * curve too, and bf16's ratio is bf16's, not f16's: none */
    t = pb_cost_src_us(&cost, PB_ALLREDUCE, PB_F16, 8, 0, 8 * MIB, 0, &s);
    CHECK(s.cal == PB_CAL_OTHER && s.ratio_at == 0);
    /* said so: the step's note names the ratio and where it was measured */
    pb_step_t st;
    memset(&st, 0, sizeof st);
    pb_cost_src_us(&cost, PB_ALLREDUCE, PB_BF16, 8, 0, 8 * MIB, 0, &s);
    pb_step_count_source(&st, &s);
    CHECK(st.ops_other_dtype == 1 && st.ops_dtype_scaled == 1);
    char note[512];
    pb_step_calib_note(&st, "h100", note, sizeof note);
    CHECK(strstr(note, "1 from another type's curve times their own type's time over it where "
                       "both were measured (the farthest: x3.3 at 1 MiB)") != NULL);
    pb_calib_free(&k);
}

/* Only where the other curve was measured: bf16 at 128 MiB alone is past
 * float's 64 MiB (reached only by extrapolation), so no ratio is known
 * there and float's curve answers as it is, said as before */
static void no_common_size(void)
{
    pb_calib_t k;
    main_job(&k, 128 * MIB);
    pb_hw_t hw;
    pb_err_t err;
    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    pb_cost_t cost = {&hw, &k, 0};
    pb_cost_src_t s;
    double t = pb_cost_src_us(&cost, PB_ALLREDUCE, PB_BF16, 8, 0, 8 * MIB, 0, &s);
    CHECK_NEAR(t, 20.0 + 2e-5 * 8388608.0, 1e-6);
    CHECK(s.cal == PB_CAL_OTHER && s.ratio_at == 0);
    uint64_t at = 1;
    CHECK(pb_calib_dtype_ratio(&k, &k.c[0], PB_BF16, 8 * MIB, &at) == 1.0 && at == 0);
    pb_calib_free(&k);
}

/* Six sizes (8 .. 256 B) at 5.00 us each: before, the two-term fit left
 * beta at +8.2e-18 us/B from rounding (calibrate printed
 * 121662041773637.578 GB/s) and the piece passed for one with a
 * bandwidth term, extrapolated 2x; now it is latency-only: beta 0, alpha
 * 5, and 512 B is out of its reach. */
static void flat_piece(void)
{
    uint64_t x[6];
    double t[6];
    for (int i = 0; i < 6; i++)
        x[i] = UINT64_C(8) << i, t[i] = 5.0;
    pb_curve_t c;
    memset(&c, 0, sizeof c);
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_curve_fit(x, t, 6, 0.05, &c, &err) == PB_OK);
    CHECK(c.npieces == 1 && c.p[0].beta_us_b == 0.0);
    CHECK_NEAR(c.p[0].alpha_us, 5.0, 1e-12);
    CHECK(pb_curve_reach(&c, 256) == PB_REACH_IN && pb_curve_reach(&c, 512) == PB_REACH_OUT);
    /* a real bandwidth term is kept: 5 us + 1e-3 us/B over the same sizes */
    for (int i = 0; i < 6; i++)
        t[i] = 5.0 + 1e-3 * (double)x[i];
    CHECK(pb_curve_fit(x, t, 6, 0.05, &c, &err) == PB_OK);
    CHECK(c.npieces == 1);
    CHECK_NEAR(c.p[0].beta_us_b, 1e-3, 1e-12);
    CHECK_NEAR(c.p[0].alpha_us, 5.0, 1e-9);
}

int main(void)
{
    moved_with_ratio();
    no_common_size();
    flat_piece();
    PB_TEST_END("calib_ratio");
}

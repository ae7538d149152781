/* test_band.c - model/pb_band: which published runs a prediction's band
 * rests on, their spread, and the likely range.  Every expected value is
 * worked out by hand in the comments from the made-up errors below. */
#include "model/pb_band.h"

#include <string.h>

#include "pb_test.h"

int main(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_band_t b;
    const unsigned P = PB_MECH_PIPE, M = PB_MECH_MOE, S = PB_MECH_SHARD;

    /* nine dense pipelined runs, two MoE runs, three dense runs without a
     * pipeline: 14 in all */
    const pb_band_run_t runs[] = {
        {P, -0.10}, {P, -0.05}, {P, -0.02}, {P, 0.00}, {P, 0.02}, {P, 0.04}, {P, 0.05},
        {P, 0.06},  {P, 0.08},  {M | P, 0.30}, {M, -0.20}, {0, -0.01}, {0, 0.01}, {S, 0.03},
    };
    const size_t n = sizeof runs / sizeof runs[0];

    /* a dense pipelined prediction: the nine pipelined runs share all six
     * mechanisms (9 >= PB_BAND_MIN_RUNS); j = floor((9 + 1) / 10) = 1, so
     * the smallest and largest: -0.10 .. +0.08, which hold a tenth run
     * like them with probability (9 - 1) / (9 + 1) = 0.8 */
    CHECK(pb_band_from_runs(runs, n, P, &b, &err) == PB_OK);
    CHECK(b.runs == 9);
    CHECK(b.match == PB_MECH_ALL);
    CHECK_NEAR(b.err_lo, -0.10, 1e-12);
    CHECK_NEAR(b.err_hi, 0.08, 1e-12);
    /* predicted 10 s: likely 10 / 1.08 = 9.259259... to 10 / 0.90 = 11.111... */
    double lo, hi;
    pb_band_range(&b, 10.0, 10.0, &lo, &hi);
    CHECK_NEAR(lo, 10.0 / 1.08, 1e-12);
    CHECK_NEAR(hi, 10.0 / 0.90, 1e-12);
    /* measured collectives at their ends, 9.5 and 11 s: each end widened */
    pb_band_range(&b, 9.5, 11.0, &lo, &hi);
    CHECK_NEAR(lo, 9.5 / 1.08, 1e-12);
    CHECK_NEAR(hi, 11.0 / 0.90, 1e-12);

    /* an MoE pipelined prediction: 1 run shares all (M|P); letting go of
     * CP, then sharding changes nothing (still 1); then the pipeline: MoE
     * runs, 2; fp8, the stack: still 2; then experts: all 14, j =
     * floor(15 / 10) = 1: the smallest and largest, -0.20 .. +0.30 */
    CHECK(pb_band_from_runs(runs, n, M | P, &b, &err) == PB_OK);
    CHECK(b.runs == 14);
    CHECK(b.match == 0);
    CHECK_NEAR(b.err_lo, -0.20, 1e-12);
    CHECK_NEAR(b.err_hi, 0.30, 1e-12);

    /* a dense run without a pipeline: all six mechanisms shared by the
     * 2 runs of mech 0 (none of these runs is native or fp8); letting go
     * of CP: still 2; of sharding: 3 (the sharded one joins); of the
     * pipeline: every dense run, 9 + 3 = 12 >= 9, j = floor(13 / 10) = 1:
     * -0.10 .. +0.08; experts, the stack and fp8 are still compared */
    CHECK(pb_band_from_runs(runs, n, 0, &b, &err) == PB_OK);
    CHECK(b.runs == 12);
    CHECK(b.match == (PB_MECH_MOE | PB_MECH_NATIVE | PB_MECH_FP8));
    CHECK_NEAR(b.err_lo, -0.10, 1e-12);
    CHECK_NEAR(b.err_hi, 0.08, 1e-12);

    /* 19 runs, errors -0.09, -0.08, ..., +0.09: j = floor(20 / 10) = 2, the
     * second smallest and second largest, -0.08 .. +0.08, which hold a
     * further run with probability (19 + 1 - 4) / 20 = 0.8 */
    pb_band_run_t many[19];
    for (int k = 0; k < 19; k++)
        many[k].mech = 0, many[k].err = -0.09 + 0.01 * k;
    CHECK(pb_band_from_runs(many, 19, 0, &b, &err) == PB_OK);
    CHECK(b.runs == 19);
    CHECK_NEAR(b.err_lo, -0.08, 1e-12);
    CHECK_NEAR(b.err_hi, 0.08, 1e-12);

    /* a model that is always slow on these runs: the band still holds its
     * own prediction (err_lo widened to 0) */
    const pb_band_run_t slow[] = {{0, 0.05}, {0, 0.06}, {0, 0.07}, {0, 0.08}, {0, 0.09}};
    CHECK(pb_band_from_runs(slow, 5, 0, &b, &err) == PB_OK);
    CHECK_NEAR(b.err_lo, 0.0, 1e-12);
    CHECK_NEAR(b.err_hi, 0.09, 1e-12);
    pb_band_range(&b, 10.0, 10.0, &lo, &hi);
    CHECK_NEAR(lo, 10.0 / 1.09, 1e-12);
    CHECK_NEAR(hi, 10.0, 1e-12);

    /* no runs: refused */
    CHECK(pb_band_from_runs(runs, 0, P, &b, &err) == PB_EINPUT);

    /* the mechanisms of a prediction */
    pb_model_t m;
    memset(&m, 0, sizeof m);
    pb_layout_t l;
    pb_layout_default(&l);
    pb_step_cfg_t c;
    pb_step_cfg_default(&c);
    CHECK(pb_band_mech(&m, &l, &c) == 0);
    m.experts = 8;
    l.size[PB_DIM_PP] = 4;
    l.size[PB_DIM_CP] = 2;
    c.traffic.zero = 3;
    c.framework = PB_FW_TORCHTITAN;
    c.fp8 = 1;
    CHECK(pb_band_mech(&m, &l, &c) == PB_MECH_ALL);
    c.traffic.zero = 1; /* the distributed optimizer shards no parameters */
    CHECK(pb_band_mech(&m, &l, &c) == (PB_MECH_ALL & ~PB_MECH_SHARD));
    char w[96];
    pb_band_mech_words(PB_MECH_PIPE, PB_MECH_ALL, w, sizeof w);
    CHECK(strcmp(w, "dense, Megatron-style kernels, a pipeline") == 0);
    /* the pipeline let go: not named, whether the prediction has one */
    pb_band_mech_words(PB_MECH_PIPE | PB_MECH_SHARD, PB_MECH_MOE | PB_MECH_SHARD, w, sizeof w);
    CHECK(strcmp(w, "dense, sharded parameters") == 0);
    pb_band_mech_words(PB_MECH_MOE, PB_MECH_ALL, w, sizeof w);
    CHECK(strcmp(w, "experts, Megatron-style kernels, no pipeline") == 0);
    pb_band_mech_words(PB_MECH_NATIVE | PB_MECH_FP8, PB_MECH_NATIVE | PB_MECH_FP8, w, sizeof w);
    CHECK(strcmp(w, "a PyTorch-native or JAX stack, fp8") == 0);
    PB_TEST_END("unit_band");
}

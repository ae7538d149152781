/* test_busy_plan.c - the GPU compute stand-in's launches (pb_busy_plan.h),
 * worked out by hand: launches of 250 us, waves of 20 us slices, the
 * remainder exact. */
#include "collectives/pb_busy_plan.h"

#include "pb_test.h"

static uint64_t total(uint64_t ns)
{
    uint64_t sum = 0, w, s;
    for (uint64_t i = 0; i < pb_busy_launches(ns); i++) {
        pb_busy_launch(ns, i, &w, &s);
        sum += w * s;
    }
    return sum;
}

int main(void)
{
    uint64_t w, s;
    /* 13 us: one launch, one wave of 13 us (before: a 20 us slice) */
    CHECK(pb_busy_launches(13000) == 1);
    pb_busy_launch(13000, 0, &w, &s);
    CHECK(w == 1 && s == 13000);
    /* 1 ms = 4 launches of 250 us; 250 / 20 = 12.5 -> 13 waves of
     * 250000 / 13 = 19230 ns (13 x 19230 = 249990: 10 ns short) */
    CHECK(pb_busy_launches(1000000) == 4);
    pb_busy_launch(1000000, 3, &w, &s);
    CHECK(w == 13 && s == 19230);
    /* 1.01 ms: 4 launches of 250 us and a 5th of 10 us (1 wave) */
    CHECK(pb_busy_launches(1010000) == 5);
    pb_busy_launch(1010000, 4, &w, &s);
    CHECK(w == 1 && s == 10000);
    /* a 30 ms layer pass: 120 launches, never one grid for all of it */
    CHECK(pb_busy_launches(30000000) == 120);
    /* the launches add up to the request, short by under 1 ns a wave */
    CHECK(total(13000) == 13000);
    CHECK(1000000 - total(1000000) < 4 * 13);
    CHECK(30000000 - total(30000000) <= 120 * 13);
    CHECK(pb_busy_launches(0) == 0);
    /* the hold ahead of a GEMM series: 1 ms + 20 us x 50 = 2 ms; capped
     * at 1 s (1 ms + 20 us x 100000 = 2.001 s) */
    CHECK_NEAR(pb_busy_hold_s(50), 2e-3, 1e-12);
    CHECK_NEAR(pb_busy_hold_s(100000), 1.0, 1e-12);
    PB_TEST_END("busy_plan");
}

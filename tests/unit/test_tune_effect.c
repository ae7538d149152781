/* test_tune_effect.c - what a tuned collective does to the predicted
 * step (bench/cmd/pb_tune_effect.c): a part's exposed communication
 * becomes max(0, comm_total x ratio - hidden), hidden = comm_total -
 * part; a part's ratio is its cases' time under the setting over their
 * time under the default, TP and SP cases both in the TP part.  Every
 * number is worked by hand below. */
#include <string.h>

#include "bench/cmd/pb_tune.h"
#include "pb_test.h"

/* A plan with a TP case (weight 3, ratio 0.5), an SP case (weight 1,
 * ratio 0.9) and a DP case (weight 2, unchanged): the TP part's ratio is
 * (3 x 0.5 + 1 x 0.9) / (3 + 1) = 2.4 / 4 = 0.6, whatever the order of
 * the cases.  On a step of 10 s with 3 s of TP communication, 1 s of it
 * exposed (2 s hidden): 3 x 0.6 = 1.8 s fits in the 2 s window, so the
 * step is 10 - 1 = 9 s; the SP ratio alone (0.9, what SP overwriting
 * TP gave) would give 2.7 - 2 = 0.7 s exposed: 9.7 s. */
static void test_tp_and_sp(void)
{
    const int strat[3] = {PB_STRAT_TP, PB_STRAT_SP, PB_STRAT_DP};
    const int rev[3] = {PB_STRAT_SP, PB_STRAT_TP, PB_STRAT_DP};
    const double w[3] = {3.0, 1.0, 2.0}, ratio[3] = {0.5, 0.9, 1.0};
    const double wr[3] = {1.0, 3.0, 2.0}, ratio_r[3] = {0.9, 0.5, 1.0};
    double part[PB_PART_COUNT];
    pb_tune_part_ratios(strat, w, ratio, 3, part);
    CHECK_NEAR(part[PB_PART_TP], 0.6, 1e-12);
    CHECK_NEAR(part[PB_PART_DP], 1.0, 1e-12);
    CHECK_NEAR(part[PB_PART_PP], 1.0, 1e-12); /* no case: unchanged */
    pb_step_t st;
    memset(&st, 0, sizeof st);
    st.total = 10.0;
    st.part[PB_PART_TP] = 1.0;
    st.comm_total[PB_PART_TP] = 3.0;
    CHECK_NEAR(pb_tune_step_scaled(&st, part), 9.0, 1e-12);
    pb_tune_part_ratios(rev, wr, ratio_r, 3, part);
    CHECK_NEAR(part[PB_PART_TP], 0.6, 1e-12);
    /* SP faster than TP now: (3 x 0.9 + 1 x 0.5) / 4 = 3.2 / 4 = 0.8;
     * 3 x 0.8 = 2.4 s, 0.4 s past the window: 10 - 1 + 0.4 = 9.4 s (SP's
     * 0.5 alone: 1.5 s, hidden, 9 s) */
    const double ratio_s[3] = {0.9, 0.5, 1.0};
    pb_tune_part_ratios(strat, w, ratio_s, 3, part);
    CHECK_NEAR(part[PB_PART_TP], 0.8, 1e-12);
    CHECK_NEAR(pb_tune_step_scaled(&st, part), 9.4, 1e-12);
    /* a case with no strategy (--op) feeds no part */
    const int none[1] = {-1};
    const double half[1] = {0.5}, one[1] = {1.0};
    pb_tune_part_ratios(none, one, half, 1, part);
    CHECK_NEAR(part[PB_PART_TP], 1.0, 1e-12);
}

int main(void)
{
    test_tp_and_sp();
    pb_step_t st;
    memset(&st, 0, sizeof st);
    st.total = 10.0;
    st.part[PB_PART_TP] = 1.0;       /* 3 s of TP, 2 s of it hidden */
    st.comm_total[PB_PART_TP] = 3.0;
    st.part[PB_PART_DP] = 0.0;       /* 2 s of DP, all hidden */
    st.comm_total[PB_PART_DP] = 2.0;
    double r[PB_PART_COUNT];
    for (int p = 0; p < PB_PART_COUNT; p++)
        r[p] = 1.0;
    CHECK_NEAR(pb_tune_step_scaled(&st, r), 10.0, 1e-12); /* nothing changed */
    r[PB_PART_TP] = 0.8; /* 2.4 - 2 = 0.4 exposed: 10 - 1 + 0.4 */
    CHECK_NEAR(pb_tune_step_scaled(&st, r), 9.4, 1e-12);
    r[PB_PART_TP] = 0.5; /* 1.5 s fits in the 2 s window: 10 - 1 */
    CHECK_NEAR(pb_tune_step_scaled(&st, r), 9.0, 1e-12);
    r[PB_PART_TP] = 1.5; /* 4.5 - 2 = 2.5 exposed: 10 - 1 + 2.5 */
    CHECK_NEAR(pb_tune_step_scaled(&st, r), 11.5, 1e-12);
    r[PB_PART_TP] = 1.0;
    r[PB_PART_DP] = 1.2; /* 2.4 s in a 2 s window: 0.4 comes out */
    CHECK_NEAR(pb_tune_step_scaled(&st, r), 10.4, 1e-12);
    r[PB_PART_DP] = 0.5; /* hidden already: nothing to gain */
    CHECK_NEAR(pb_tune_step_scaled(&st, r), 10.0, 1e-12);
    PB_TEST_END("unit_tune_effect");
}

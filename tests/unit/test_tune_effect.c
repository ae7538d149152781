/* test_tune_effect.c - what a tuned collective does to the predicted
 * step (bench/cmd/pb_tune_effect.c): a part's exposed communication
 * becomes max(0, comm_total x ratio - hidden), hidden = comm_total -
 * part.  Every number is worked by hand below. */
#include <string.h>

#include "bench/cmd/pb_tune.h"
#include "pb_test.h"

int main(void)
{
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

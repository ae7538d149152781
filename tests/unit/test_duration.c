/* test_duration.c - util/pb_duration: a time as typed on a command line.
 * Each answer is the unit's definition applied by hand (1 min = 60 s,
 * 1 h = 3600 s, 1 ms = 1e-3 s). */
#include "util/pb_duration.h"

#include "pb_test.h"

static double parse(const char *s, int want_rc)
{
    double v = -1.0;
    int rc = pb_duration(s, &v);
    if (rc != want_rc) {
        fprintf(stderr, "pb_duration(\"%s\") = %d, want %d\n", s ? s : "(null)", rc, want_rc);
        pb_test_failures++;
    }
    return v;
}

int main(void)
{
    CHECK_NEAR(parse("90", PB_DURATION_OK), 90.0, 1e-12);   /* no unit: seconds */
    CHECK_NEAR(parse("90s", PB_DURATION_OK), 90.0, 1e-12);
    CHECK_NEAR(parse("2m", PB_DURATION_OK), 120.0, 1e-12);  /* 2 x 60 */
    CHECK_NEAR(parse("10min", PB_DURATION_OK), 600.0, 1e-12);
    CHECK_NEAR(parse("1.5h", PB_DURATION_OK), 5400.0, 1e-12); /* 1.5 x 3600 */
    CHECK_NEAR(parse("250ms", PB_DURATION_OK), 0.25, 1e-12);
    CHECK_NEAR(parse(".5m", PB_DURATION_OK), 30.0, 1e-12);
    /* not a duration: the untouched value stays -1 */
    CHECK(parse("", PB_DURATION_BAD) == -1.0);
    CHECK(parse("m", PB_DURATION_BAD) == -1.0);
    CHECK(parse("2 m", PB_DURATION_BAD) == -1.0);  /* a space */
    CHECK(parse(" 2m", PB_DURATION_BAD) == -1.0);
    CHECK(parse("-2m", PB_DURATION_BAD) == -1.0);  /* a sign */
    CHECK(parse("2d", PB_DURATION_BAD) == -1.0);   /* no such unit */
    CHECK(parse("2mm", PB_DURATION_BAD) == -1.0);
    CHECK(parse("0x10", PB_DURATION_BAD) == -1.0); /* strtod's hexadecimal */
    CHECK(parse("inf", PB_DURATION_BAD) == -1.0);
    CHECK(parse(NULL, PB_DURATION_BAD) == -1.0);
    /* a duration, but nothing to spend */
    CHECK(parse("0", PB_DURATION_NOT_POS) == -1.0);
    CHECK(parse("0.0s", PB_DURATION_NOT_POS) == -1.0);
    CHECK(parse("1e400", PB_DURATION_NOT_POS) == -1.0); /* overflows to infinity */
    PB_TEST_END("unit_duration");
}

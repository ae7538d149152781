/* test_vexpect.c - validate/pb_vexpect: a pair's expected bandwidth and
 * the majority rule on made-up facts.  Expected values by hand:
 *   NV18 on H100: 18 links x 25 GB/s = 450 GB/s per direction (NVIDIA's
 *   900 GB/s is both directions); NV18 on B200: 18 x 50 = 900;
 *   NET on two 400 Gb/s NICs (50 GB/s) shared by 2 and 4 ranks: the
 *   slower end, 50 / 4 = 12.5 GB/s. */
#include "validate/pb_outlier.h"
#include "validate/pb_vexpect.h"

#include <math.h>
#include <string.h>

#include "pb_test.h"

static const pb_vexpect_rank_t h100 = {25.0, 63.0, 50.0};
static const pb_vexpect_rank_t gen4 = {25.0, 31.5, 0.0};

static void test_models(void)
{
    CHECK(pb_vexpect_nvlink_per_link("NVIDIA H100 80GB HBM3") == 25.0);
    CHECK(pb_vexpect_nvlink_per_link("NVIDIA A100-SXM4-80GB") == 25.0);
    CHECK(pb_vexpect_nvlink_per_link("NVIDIA GB200") == 50.0);
    CHECK(pb_vexpect_nvlink_per_link("NVIDIA B200") == 50.0);
    CHECK(pb_vexpect_nvlink_per_link("NVIDIA GeForce RTX 4090") == 0.0);
    CHECK(pb_vexpect_nvlink_per_link(NULL) == 0.0);
}

static void test_pairs(void)
{
    pb_vexpect_t e;
    pb_link_t nv = {PB_LINK_NV, 18}, pix = {PB_LINK_PIX, 0}, net = {PB_LINK_NET, 0};
    pb_link_t sys = {PB_LINK_SYS, 0}, core = {PB_LINK_CORE, 0};
    pb_vexpect_pair(NULL, nv, &h100, &h100, 1, 1, 1, &e);
    CHECK(e.gbps == 450.0);
    pb_vexpect_pair(NULL, nv, &h100, &h100, 1, 1, 0, &e); /* host memory moved: none */
    CHECK(e.gbps == 0.0);
    pb_vexpect_pair(NULL, pix, &h100, &gen4, 1, 1, 1, &e); /* the slower end's link */
    CHECK(e.gbps == 31.5);
    pb_vexpect_pair(NULL, net, &h100, &h100, 2, 4, 1, &e);
    CHECK(e.gbps == 12.5);
    pb_vexpect_pair(NULL, net, &h100, &gen4, 1, 1, 0, &e); /* one NIC unknown: none */
    CHECK(e.gbps == 0.0);
    pb_vexpect_pair(NULL, sys, &h100, &h100, 1, 1, 1, &e); /* through the CPUs: none */
    CHECK(e.gbps == 0.0);
    pb_vexpect_pair(NULL, core, &h100, &h100, 1, 1, 0, &e);
    CHECK(e.gbps == 0.0);
}

static void test_user(void)
{
    pb_vexpect_set_t s;
    pb_err_t err;
    pb_vexpect_t e;
    memset(&s, 0, sizeof s);
    memset(&err, 0, sizeof err);
    CHECK(pb_vexpect_parse(&s, "NV=300,core=8", &err) == PB_OK);
    CHECK(pb_vexpect_parse(&s, "NV18=380", &err) == PB_OK);
    CHECK(pb_vexpect_parse(&s, "CORE=9.5", &err) == PB_OK); /* again: the last wins */
    CHECK(s.n == 3);
    pb_vexpect_pair(&s, (pb_link_t){PB_LINK_NV, 18}, &h100, &h100, 1, 1, 1, &e);
    CHECK(e.gbps == 380.0 && strcmp(e.src, "--expect NV18") == 0); /* exact before class */
    pb_vexpect_pair(&s, (pb_link_t){PB_LINK_NV, 12}, &h100, &h100, 1, 1, 1, &e);
    CHECK(e.gbps == 300.0);
    pb_vexpect_pair(&s, (pb_link_t){PB_LINK_CORE, 0}, &h100, &h100, 1, 1, 0, &e);
    CHECK(e.gbps == 9.5);
    CHECK(pb_vexpect_parse(&s, "NV18", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "--expect takes CLASS=GB/s") != NULL);
    memset(&err, 0, sizeof err); /* the first error is kept (util/pb_err.h) */
    CHECK(pb_vexpect_parse(&s, "FOO=3", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "'FOO' is not a link class") != NULL);
    CHECK(pb_vexpect_parse(&s, "NET=-1", &err) == PB_EINPUT);
    CHECK(pb_vexpect_parse(&s, "NET=4x", &err) == PB_EINPUT);
    CHECK(pb_vexpect_parse(&s, "", &err) == PB_EINPUT);
}

/* The story: every link 40 % below its expectation (share 0.6
 * in every vote) fails the default 0.70; a healthy H100 NVLink pair at
 * 380 of 450 GB/s (0.84) passes; one vote of 7 low is not a majority. */
static void test_majority(void)
{
    double all_low[7] = {0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6};
    double healthy[7] = {0.84, 0.85, 0.83, 0.84, 0.84, 0.86, 0.84};
    double one_bad[7] = {0.84, 0.2, 0.83, 0.84, 0.84, 0.86, 0.84};
    double four_bad[7] = {0.5, 0.9, 0.5, 0.9, 0.5, 0.9, 0.5};
    double med;
    int below;
    CHECK(pb_outlier_majority_below(all_low, 7, PB_VEXPECT_MIN_SHARE, &med, &below) == 1);
    CHECK(below == 7 && med == 0.6);
    CHECK(pb_outlier_majority_below(healthy, 7, PB_VEXPECT_MIN_SHARE, &med, &below) == 0);
    CHECK(below == 0 && med == 0.84);
    CHECK(pb_outlier_majority_below(one_bad, 7, PB_VEXPECT_MIN_SHARE, &med, &below) == 0);
    CHECK(below == 1);
    /* 4 of 7 below: sorted 0.5 0.5 0.5 0.5 0.9 0.9 0.9, element 3 = 0.5 */
    CHECK(pb_outlier_majority_below(four_bad, 7, PB_VEXPECT_MIN_SHARE, &med, &below) == 1);
    CHECK(below == 4 && med == 0.5);
    CHECK(pb_outlier_majority_below(four_bad, 0, 0.75, &med, &below) == 0 && isnan(med));
}

int main(void)
{
    test_models();
    test_pairs();
    test_user();
    test_majority();
    PB_TEST_END("unit_vexpect");
}

/* NCCL version codes as ncclGetVersion() returns them, decoded and
 * checked against the oldest library the nccl backend drives (2.18). */
#include <string.h>

#include "collectives/pb_nccl_ver.h"
#include "pb_test.h"

int main(void)
{
    /* up to 2.8: major*1000 + minor*100 + patch */
    pb_nccl_ver_t v = pb_nccl_version_decode(2804);
    CHECK(v.major == 2 && v.minor == 8 && v.patch == 4);
    /* since 2.9: major*10000 + minor*100 + patch */
    v = pb_nccl_version_decode(20906);
    CHECK(v.major == 2 && v.minor == 9 && v.patch == 6);
    v = pb_nccl_version_decode(22803);
    CHECK(v.major == 2 && v.minor == 28 && v.patch == 3);
    v = pb_nccl_version_decode(0); /* no answer */
    CHECK(v.major == 0 && v.minor == 0 && v.patch == 0);

    /* feature thresholds: all-to-all 2.28, fp8 2.24 */
    CHECK(pb_nccl_version_at_least(22803, 2, 28));
    CHECK(!pb_nccl_version_at_least(22703, 2, 28));
    CHECK(pb_nccl_version_at_least(22400, 2, 24));
    CHECK(!pb_nccl_version_at_least(2804, 2, 24));
    CHECK(pb_nccl_version_at_least(30001, 2, 28)); /* a 3.x library */

    char why[300] = "";
    CHECK(pb_nccl_version_check(21805, "NCCL", "nccl", why, sizeof why) == 0);
    CHECK(pb_nccl_version_check(22803, "NCCL", "nccl", why, sizeof why) == 0);
    CHECK(pb_nccl_version_check(21703, "NCCL", "nccl", why, sizeof why) == 1);
    CHECK(strstr(why, "NCCL 2.17.3") != NULL && strstr(why, "2.18") != NULL);
    CHECK(pb_nccl_version_check(2804, "NCCL", "nccl", why, sizeof why) == 1);
    CHECK(strstr(why, "2.8.4") != NULL);
    /* RCCL 2.17.1 is ROCm 5.7's (rccl CHANGELOG.md, "RCCL 2.17.1-1 for
     * ROCm 5.7.0"), the last without ncclCommSplit's 2.18 base (ROCm 6.0):
     * named as RCCL, for the rccl backend */
    CHECK(pb_nccl_version_check(21701, "RCCL", "rccl", why, sizeof why) == 1);
    CHECK(strstr(why, "RCCL 2.17.1 is too old: the rccl backend") != NULL);
    PB_TEST_END("unit_nccl_ver");
}

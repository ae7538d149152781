/* test_linkrate.c - topo/pb_linkrate: line rates from sysfs files written
 * by hand in the kernel's formats (tests/fixtures/sysfs/README.md).
 * Expected values from the PCIe encodings and the stated rates:
 *   Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8 = 63.015 GB/s
 *   Gen3 x8:   8 GT/s x  8 lanes x 128/130 / 8 =  7.877 GB/s
 *   Gen1 x16: 2.5 GT/s x 16 x 8/10 / 8 = 4.0 GB/s
 *   NDR 400 Gb/s / 8 = 50 GB/s; 100 GbE = 100000 Mb/s / 8000 = 12.5 GB/s */
#include "topo/pb_linkrate.h"

#include "pb_test.h"

#define ROOT PB_SOURCE_DIR "/tests/fixtures/sysfs"

static void test_pcie(void)
{
    CHECK_NEAR(pb_linkrate_pcie_gbps(32.0, 16), 32.0 * 16 * 128.0 / 130.0 / 8.0, 1e-12);
    CHECK_NEAR(pb_linkrate_pcie_gbps(16.0, 16), 31.507692307692308, 1e-9); /* Gen4 x16 */
    CHECK_NEAR(pb_linkrate_pcie_gbps(2.5, 16), 4.0, 1e-12);
    CHECK(pb_linkrate_pcie_gbps(0.0, 16) == 0.0 && pb_linkrate_pcie_gbps(8.0, 0) == 0.0);
    CHECK_NEAR(pb_linkrate_pcie(ROOT, "0000:18:00.0"), 63.01538461538462, 1e-9);
    CHECK_NEAR(pb_linkrate_pcie(ROOT, "0000:2a:00.0"), 7.876923076923077, 1e-9);
    CHECK(pb_linkrate_pcie(ROOT, "0000:3b:00.0") == 0.0); /* Unknown, width 255 */
    CHECK(pb_linkrate_pcie(ROOT, "0000:99:00.0") == 0.0); /* no such device */
    CHECK(pb_linkrate_pcie(ROOT, "") == 0.0 && pb_linkrate_pcie(ROOT, NULL) == 0.0);
}

static void test_nic(void)
{
    CHECK_NEAR(pb_linkrate_nic(ROOT, "mlx5_0"), 50.0, 1e-12);
    CHECK_NEAR(pb_linkrate_nic(ROOT, "eth0"), 12.5, 1e-12);
    CHECK(pb_linkrate_nic(ROOT, "ib0") == 0.0);    /* speed -1 */
    CHECK(pb_linkrate_nic(ROOT, "mlx5_9") == 0.0); /* absent */
    CHECK(pb_linkrate_nic(ROOT, "../../etc") == 0.0);
    CHECK(pb_linkrate_nic(ROOT, "") == 0.0);
}

int main(void)
{
    test_pcie();
    test_nic();
    PB_TEST_END("unit_linkrate");
}

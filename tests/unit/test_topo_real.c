/* Real machines' hwloc dumps, copied into tests/fixtures/real with their
 * origin and license (its README). */
#include <string.h>

#include "pb_test.h"
#include "topo/pb_topo.h"

#define REAL(name) PB_SOURCE_DIR "/tests/fixtures/real/" name

static int load(pb_topo_t *tp, const char *path)
{
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_topo_load(tp, path, 1, &err) != PB_OK) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(0);
        return -1;
    }
    return 0;
}

/* DGX-2: 16 V100, each with 6 links (25 GB/s) into the NVSwitch fabric:
 * NV6 between every pair; the dump has no NICs. */
static void dgx2(void)
{
    pb_topo_t tp;
    if (load(&tp, REAL("nvidiaDGX2.xml")) != 0)
        return;
    CHECK(tp.ngpus == 16);
    CHECK(tp.nnics == 0);
    for (int a = 0; a < tp.ngpus; a++)
        for (int b = 0; b < tp.ngpus; b++) {
            pb_link_t l = pb_topo_gpu_gpu(&tp, a, b);
            CHECK(a == b ? l.cls == PB_LINK_SELF : l.cls == PB_LINK_NV && l.nvlinks == 6);
        }
    pb_topo_free(&tp);
}

/* POWER8 Minsky: GPUs 0,1 on socket 0 and 2,3 on socket 1, each pair
 * joined by 40 GB/s = 2 NVLink-1 links; across sockets no NVLink and
 * separate host bridges on separate packages: SYS. */
static void power8(void)
{
    pb_topo_t tp;
    if (load(&tp, REAL("power8gpudistances.xml")) != 0)
        return;
    CHECK(tp.ngpus == 4);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            if (a == b)
                continue;
            pb_link_t l = pb_topo_gpu_gpu(&tp, a, b);
            if (a / 2 == b / 2)
                CHECK(l.cls == PB_LINK_NV && l.nvlinks == 2);
            else
                CHECK(l.cls == PB_LINK_SYS);
        }
    pb_topo_free(&tp);
}

/* LLNL Pascal: two P100 and the ConnectX-5 (mlx5_0) under one PCIe
 * switch, each below its own downstream port: PIX everywhere. */
static void pascal(void)
{
    pb_topo_t tp;
    if (load(&tp, REAL("pcie-2xp100-pascal.xml")) != 0)
        return;
    CHECK(tp.ngpus == 2);
    CHECK(tp.nnics >= 1 && strcmp(tp.nics[0].name, "mlx5_0") == 0);
    CHECK(pb_topo_gpu_gpu(&tp, 0, 1).cls == PB_LINK_PIX);
    CHECK(pb_topo_gpu_nic(&tp, 0, 0).cls == PB_LINK_PIX);
    CHECK(pb_topo_gpu_nic(&tp, 1, 0).cls == PB_LINK_PIX);
    CHECK(pb_topo_nearest_nic(&tp, 0) == 0);
    pb_topo_free(&tp);
}

/* AWS g4dn.metal: 8 T4 on PCIe only: no NV# anywhere. */
static void g4dn(void)
{
    pb_topo_t tp;
    if (load(&tp, REAL("aws-g4dn-metal.xml")) != 0)
        return;
    CHECK(tp.ngpus == 8);
    for (int a = 0; a < tp.ngpus; a++)
        for (int b = 0; b < tp.ngpus; b++)
            CHECK(pb_topo_gpu_gpu(&tp, a, b).cls != PB_LINK_NV);
    /* GPUs 0 and 1 hang off two root ports of one host bridge */
    CHECK(pb_topo_gpu_gpu(&tp, 0, 1).cls == PB_LINK_PHB);
    pb_topo_free(&tp);
}

int main(void)
{
    dgx2();
    power8();
    pascal();
    g4dn();
    PB_TEST_END("topo_real");
}

/* The project's own fixtures (tests/fixtures, written by gen_fixtures.py,
 * whose header describes each machine).  Every expected class below is
 * derived by hand from that description, not from running the code. */
#include <string.h>

#include "pb_test.h"
#include "topo/pb_cluster.h"
#include "topo/pb_hostlink.h"
#include "topo/pb_place.h"
#include "topo/pb_topo.h"

#define FIX(name) PB_SOURCE_DIR "/tests/fixtures/" name

static int load(pb_topo_t *tp, const char *path)
{
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_topo_load(tp, path, 1, &err) != PB_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static void check_gg(const pb_topo_t *tp, int a, int b, pb_link_class_t want, int links)
{
    pb_link_t l = pb_topo_gpu_gpu(tp, a, b);
    if (l.cls != want || l.nvlinks != links) {
        char got[16];
        pb_link_format(l, got, sizeof got);
        fprintf(stderr, "GPU%d-GPU%d: got %s, want %s%d\n", a, b, got,
                pb_link_class_name(want), links);
    }
    CHECK(l.cls == want && l.nvlinks == links);
}

static void check_gn(const pb_topo_t *tp, int g, int n, pb_link_class_t want)
{
    pb_link_t l = pb_topo_gpu_nic(tp, g, n);
    if (l.cls != want)
        fprintf(stderr, "GPU%d-NIC%d: got %s, want %s\n", g, n, pb_link_class_name(l.cls),
                pb_link_class_name(want));
    CHECK(l.cls == want);
}

/* DGX-H100-like: every GPU pair NV18 through the 4 NVSwitches (5+4+4+5
 * links of 25 GB/s); GPU i and NIC i share a switch (PIX); other NICs of
 * the same socket are behind another host bridge of the same NUMA node
 * (NODE); the other socket's are SYS. */
static void dgx_h100(void)
{
    pb_topo_t tp;
    if (load(&tp, FIX("dgx-h100.xml")) != 0) {
        CHECK(0);
        return;
    }
    CHECK(tp.ngpus == 8);
    CHECK(tp.nnics == 8);
    CHECK(tp.nvlink_source == PB_NVLINK_DISTANCES);
    for (int a = 0; a < 8; a++) {
        check_gg(&tp, a, a, PB_LINK_SELF, 0);
        for (int b = 0; b < 8; b++)
            if (a != b)
                check_gg(&tp, a, b, PB_LINK_NV, 18);
        for (int n = 0; n < 8; n++)
            check_gn(&tp, a, n, n == a ? PB_LINK_PIX : n / 4 == a / 4 ? PB_LINK_NODE : PB_LINK_SYS);
        CHECK(pb_topo_nearest_nic(&tp, a) == a);
    }
    CHECK(strcmp(tp.nics[3].name, "mlx5_3") == 0);
    char cpus[64], numa[64];
    pb_topo_affinity(&tp, tp.gpus[0].pci, cpus, sizeof cpus, numa, sizeof numa);
    CHECK(strcmp(cpus, "0-7") == 0 && strcmp(numa, "0") == 0);
    pb_topo_affinity(&tp, tp.gpus[5].pci, cpus, sizeof cpus, numa, sizeof numa);
    CHECK(strcmp(cpus, "8-15") == 0 && strcmp(numa, "1") == 0);

    /* two such nodes, 16 ranks: tp 8 stays on NVLink, tp 16 and dp cross */
    pb_cluster_t c;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_cluster_init(&c, &tp, 2, &err) == PB_OK);
    pb_place_layout_t l = {{8, 0, 0, 0, 0}};
    CHECK(pb_place_layout_fit(&l, 16, &err) == PB_OK && l.size[PB_PK_DP] == 2);
    pb_link_t tpl = pb_place_slowest(&l, 16, PB_PK_TP, pb_cluster_link, &c);
    CHECK(tpl.cls == PB_LINK_NV && tpl.nvlinks == 18);
    CHECK(pb_place_slowest(&l, 16, PB_PK_DP, pb_cluster_link, &c).cls == PB_LINK_NET);
    CHECK(pb_place_slowest(&l, 16, PB_PK_PP, pb_cluster_link, &c).cls == PB_LINK_SELF);
    pb_place_layout_t l16 = {{16, 0, 0, 0, 0}};
    CHECK(pb_place_layout_fit(&l16, 16, &err) == PB_OK);
    CHECK(pb_place_slowest(&l16, 16, PB_PK_TP, pb_cluster_link, &c).cls == PB_LINK_NET);
    pb_place_layout_t bad = {{3, 0, 0, 0, 0}};
    CHECK(pb_place_layout_fit(&bad, 16, &err) == PB_EINPUT);
    pb_cluster_free(&c);
    pb_topo_free(&tp);
}

/* 8-GPU PCIe server: per socket root port -> U0 -> {U1: GPUs 0,1; U2:
 * GPUs 2,3} (4..7 alike): same leaf switch PIX, across leaves PXB, across
 * sockets SYS.  NIC0 (mlx5_0) on its own root port of socket 0's host
 * bridge: PHB to GPUs 0-3; NIC1 (mlx5_1) behind socket 1's second host
 * bridge: NODE to GPUs 4-7; SYS across sockets.  No NVLink at all. */
static void pcie_8gpu(void)
{
    pb_topo_t tp;
    if (load(&tp, FIX("pcie-8gpu.xml")) != 0) {
        CHECK(0);
        return;
    }
    CHECK(tp.ngpus == 8);
    CHECK(tp.nnics == 2);
    CHECK(tp.nvlink_source == PB_NVLINK_NONE);
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) {
            pb_link_class_t want = a == b                 ? PB_LINK_SELF
                                   : a / 4 != b / 4       ? PB_LINK_SYS
                                   : a / 2 == b / 2       ? PB_LINK_PIX
                                                          : PB_LINK_PXB;
            check_gg(&tp, a, b, want, 0);
        }
    for (int g = 0; g < 8; g++) {
        check_gn(&tp, g, 0, g < 4 ? PB_LINK_PHB : PB_LINK_SYS);
        check_gn(&tp, g, 1, g < 4 ? PB_LINK_SYS : PB_LINK_NODE);
        CHECK(pb_topo_nearest_nic(&tp, g) == (g < 4 ? 0 : 1));
    }
    pb_topo_free(&tp);
}

/* CPU-only: package 0 = one NUMA node with L3s {0,1} and {2,3}; package
 * 1 = NUMA nodes {4,5} and {6,7}, one L3 each; one PU per core. */
static void cpu_2s(void)
{
    pb_topo_t tp;
    if (load(&tp, FIX("cpu-2s.xml")) != 0) {
        CHECK(0);
        return;
    }
    CHECK(tp.ngpus == 0 && tp.nnics == 0);
    CHECK(pb_topo_ncores(&tp) == 8);
    hwloc_bitmap_t s[9];
    for (int i = 0; i < 8; i++)
        s[i] = hwloc_bitmap_alloc();
    s[8] = hwloc_bitmap_alloc(); /* unbound: empty set = the whole node */
    for (int i = 0; i < 8; i++)
        hwloc_bitmap_only(s[i], (unsigned)i);
    CHECK(pb_hostlink_class(tp.t, s[0], s[0]) == PB_LINK_CORE);
    CHECK(pb_hostlink_class(tp.t, s[0], s[1]) == PB_LINK_L3);
    CHECK(pb_hostlink_class(tp.t, s[0], s[2]) == PB_LINK_NODE);
    CHECK(pb_hostlink_class(tp.t, s[4], s[5]) == PB_LINK_L3);
    CHECK(pb_hostlink_class(tp.t, s[4], s[6]) == PB_LINK_SOCKET);
    CHECK(pb_hostlink_class(tp.t, s[0], s[4]) == PB_LINK_SYS);
    CHECK(pb_hostlink_class(tp.t, s[8], s[0]) == PB_LINK_SYS);
    for (int i = 0; i < 9; i++)
        hwloc_bitmap_free(s[i]);

    /* one rank per core on one node: tp 2 pairs share an L3; tp 4 puts
     * {4..7} across package 1's two NUMA nodes (SOCKET, slower than
     * package 0's NODE); tp 8 spans the sockets */
    pb_cluster_t c;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_cluster_init(&c, &tp, 1, &err) == PB_OK && c.per_node == 8 && !c.gpus);
    pb_place_layout_t l2 = {{2, 0, 0, 0, 0}}, l4 = {{4, 0, 0, 0, 0}}, l8 = {{8, 0, 0, 0, 0}};
    CHECK(pb_place_layout_fit(&l2, 8, &err) == PB_OK);
    CHECK(pb_place_layout_fit(&l4, 8, &err) == PB_OK);
    CHECK(pb_place_layout_fit(&l8, 8, &err) == PB_OK);
    CHECK(pb_place_slowest(&l2, 8, PB_PK_TP, pb_cluster_link, &c).cls == PB_LINK_L3);
    CHECK(pb_place_slowest(&l4, 8, PB_PK_TP, pb_cluster_link, &c).cls == PB_LINK_SOCKET);
    CHECK(pb_place_slowest(&l8, 8, PB_PK_TP, pb_cluster_link, &c).cls == PB_LINK_SYS);
    /* dp of the tp-2 layout: ranks 0,2,4,6 span both sockets */
    CHECK(pb_place_slowest(&l2, 8, PB_PK_DP, pb_cluster_link, &c).cls == PB_LINK_SYS);
    pb_cluster_free(&c);
    pb_topo_free(&tp);
}

static void ordering(void)
{
    pb_link_t nv18 = {PB_LINK_NV, 18}, nv6 = {PB_LINK_NV, 6}, pix = {PB_LINK_PIX, 0};
    CHECK(pb_link_rank(nv18) < pb_link_rank(nv6));
    CHECK(pb_link_rank(nv6) < pb_link_rank(pix));
    CHECK(pb_link_slower(nv18, nv6).nvlinks == 6);
    pb_link_t back = pb_link_from_rank(pb_link_rank(nv6));
    CHECK(back.cls == PB_LINK_NV && back.nvlinks == 6);
    char buf[16];
    pb_link_format(nv18, buf, sizeof buf);
    CHECK(strcmp(buf, "NV18") == 0);
}

static void bad_files(void)
{
    pb_topo_t tp;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_topo_load(&tp, FIX("no-such.xml"), 1, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "no-such.xml") != NULL);
    pb_err_clear(&err);
    /* a file that exists but is no hwloc XML (this very source) */
    CHECK(pb_topo_load(&tp, PB_SOURCE_DIR "/tests/fixtures/gen_fixtures.py", 1, &err) ==
          PB_EINPUT);
}

int main(void)
{
    dgx_h100();
    pcie_8gpu();
    cpu_2s();
    ordering();
    bad_files();
    PB_TEST_END("topo_fixtures");
}

/* --nccl-topo on the real Azure files (tests/fixtures/real, with their
 * origin and license), checked by reading their trees: NDv4 hangs two GPUs and two NICs under each of
 * four bridges, one bridge per NUMA node; NDv5 one GPU and one NIC under
 * each of eight bridges, four per NUMA node.  Neither has <nvlink>. */
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "ntopo_cls.h"


static void azure(const char *file, const char *const want[8][8], const char *const gpu_nic[8])
{
    char path[256];
    snprintf(path, sizeof path, "%s/tests/fixtures/real/%s", PB_SOURCE_DIR, file);
    pb_ntopo_t t;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_ntopo_load(path, &t, &err) == PB_OK);
    CHECK(t.ngpus == 8 && t.nnics == 8 && !t.has_nvlink);
    for (int a = 0; a < 8 && t.n == 16; a++) {
        for (int b = 0; b < 8; b++)
            if (strcmp(cls(&t, a, b, 0), want[a][b]) != 0) {
                fprintf(stderr, "%s GPU%d-GPU%d: %s, want %s\n", file, a, b, cls(&t, a, b, 0),
                        want[a][b]);
                CHECK(0);
            }
        /* GPU a and NIC a share a bridge on both machines */
        CHECK(strcmp(cls(&t, a, 8 + a, 0), "PIX") == 0);
        CHECK(strcmp(cls(&t, a, 8 + (a + 4) % 8, 0), "SYS") == 0);
        CHECK(strcmp(cls(&t, a, 8 + (a ^ 1), 0), gpu_nic[a]) == 0);
        CHECK(strcmp(cls(&t, a, (a + 1) % 8, 18), "NV18") == 0); /* --nvlink 18 */
    }
    pb_ntopo_free(&t);
}

int main(void)
{
    /* NDv4 by bus id: GPU0 0001, GPU1 0002 (numa 1, one bridge), GPU2 0003,
     * GPU3 0004 (numa 0), GPU4/5 000b/000c (numa 3), GPU6/7 000d/000e (numa 2) */
    static const char *const v4[8][8] = {
        {"X", "PIX", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
        {"PIX", "X", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
        {"SYS", "SYS", "X", "PIX", "SYS", "SYS", "SYS", "SYS"},
        {"SYS", "SYS", "PIX", "X", "SYS", "SYS", "SYS", "SYS"},
        {"SYS", "SYS", "SYS", "SYS", "X", "PIX", "SYS", "SYS"},
        {"SYS", "SYS", "SYS", "SYS", "PIX", "X", "SYS", "SYS"},
        {"SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "X", "PIX"},
        {"SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "PIX", "X"}};
    static const char *const v4_nic[8] = {"PIX", "PIX", "PIX", "PIX", "PIX", "PIX", "PIX", "PIX"};
    /* NDv5: GPUs 0-3 on numa 0, 4-7 on numa 1, each alone under its bridge */
    static const char *const v5[8][8] = {
        {"X", "PHB", "PHB", "PHB", "SYS", "SYS", "SYS", "SYS"},
        {"PHB", "X", "PHB", "PHB", "SYS", "SYS", "SYS", "SYS"},
        {"PHB", "PHB", "X", "PHB", "SYS", "SYS", "SYS", "SYS"},
        {"PHB", "PHB", "PHB", "X", "SYS", "SYS", "SYS", "SYS"},
        {"SYS", "SYS", "SYS", "SYS", "X", "PHB", "PHB", "PHB"},
        {"SYS", "SYS", "SYS", "SYS", "PHB", "X", "PHB", "PHB"},
        {"SYS", "SYS", "SYS", "SYS", "PHB", "PHB", "X", "PHB"},
        {"SYS", "SYS", "SYS", "SYS", "PHB", "PHB", "PHB", "X"}};
    static const char *const v5_nic[8] = {"PHB", "PHB", "PHB", "PHB", "PHB", "PHB", "PHB", "PHB"};
    azure("ndv4-topo.xml", v4, v4_nic);
    azure("ndv5-topo.xml", v5, v5_nic);
    PB_TEST_END("nccl_topo_azure");
}

/* test_topo_amd.c - issue 51: AMD GPUs and their xGMI links, from RCCL's
 * topology files (real machines, tests/fixtures/amd/README.md) and from a
 * KFD sysfs tree, with validate's expected rates.  Every number by hand:
 *
 * rccl-topo_8p_940.xml (8x MI300X): every <gpu gcn="gfx942"> lists 7
 *   <xgmi count="1"> elements, one per other GPU => 8 GPUs, all 28 pairs
 *   XGMI1; 8 <nic> => 8 NICs; each <pci> says vendor="0x1002".  Expected
 *   per pair: 1 link x 64 GB/s (MI300X data sheet: 128 GB/s per link
 *   both directions) = 64 GB/s per direction.
 * rccl-topo_8p_90a.xml (8 gfx90a GPUs, gcn="910", no vendor attribute):
 *   c1 links to c5, c9, d9 (count 1 each); c1 and cd share nothing but
 *   the <cpu>, no switch between => GPU0-GPU1, GPU0-GPU2, GPU0-GPU6 XGMI1,
 *   GPU0-GPU3 PHB.  Expected XGMI1: 1 x 50 GB/s (25 GT/s x 16 lanes, ROCm's
 *   MI250 microarchitecture page) = 50.
 * rccl-topo_16p1h.xml (16 gfx90a GCDs, bus order 0e 11 16 19 4e 51 56 59
 *   8f 92 97 9a cf d2 d7 da = GPU0..15): 0e-11 count 4, 0e-4e count 2,
 *   0e-8f count 1 => GPU0-GPU1 XGMI4, GPU0-GPU4 XGMI2, GPU0-GPU8 XGMI1;
 *   0e is under <cpu numaid="1">, cf under numaid="2", no xgmi between =>
 *   GPU0-GPU12 SYS.  Expected XGMI4: 4 x 50 = 200 GB/s, XGMI2 100.
 * kfd-16p1h (the same machine as KFD states it, reconstructed by
 *   gen_kfd.py): nodes 0-3 CPUs, 4-19 GPUs in bus order; node 4 has
 *   location_id 3584 = 0x0e00 => bus 0e, device 0, function 0; simd_count
 *   416 = 104 CUs x 4; gfx_target_version 90010 => gfx90a; its io_link to
 *   node 5 (bus 11) says max 200000 / min 50000 MB/s => 4 links. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo/pb_kfd.h"
#include "topo/pb_nccl_topo.h"
#include "topo/pb_topo.h"
#include "validate/pb_vexpect.h"

#include "pb_test.h"

#define AMD(f) PB_SOURCE_DIR "/tests/fixtures/amd/" f

static int is_link(pb_link_t l, pb_link_class_t cls, int n)
{
    char buf[16];
    pb_link_format(l, buf, sizeof buf);
    if (l.cls != cls || (pb_link_counted(cls) && l.nvlinks != n)) {
        fprintf(stderr, "got %s, want %s%d\n", buf, pb_link_class_name(cls), n);
        return 0;
    }
    return 1;
}

static int load(const char *path, pb_ntopo_t *t)
{
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_ntopo_load(path, t, &err) != PB_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 0;
    }
    return 1;
}

/* The expectation of a GPU pair of architecture arch linked by l. */
static double expect(pb_link_t l, const char *arch)
{
    pb_vexpect_rank_t r = {pb_vexpect_xgmi_per_link(arch), 0.0, 0.0};
    pb_vexpect_t e;
    pb_vexpect_pair(NULL, l, &r, &r, 1, 1, 1, &e);
    return e.gbps;
}

static void test_mi300x(void)
{
    pb_ntopo_t t;
    if (!load(AMD("rccl-topo_8p_940.xml"), &t)) {
        CHECK(0);
        return;
    }
    CHECK(t.ngpus == 8 && t.nnics == 8 && t.has_xgmi && !t.has_nvlink);
    for (int a = 0; a < t.ngpus; a++) {
        CHECK(t.dev[a].vendor == 0x1002 && strcmp(t.dev[a].arch, "gfx942") == 0);
        for (int b = 0; b < t.ngpus; b++)
            if (a != b)
                CHECK(is_link(pb_ntopo_link(&t, a, b, 0), PB_LINK_XGMI, 1));
    }
    pb_link_t l = pb_ntopo_link(&t, 0, 7, 0);
    CHECK(expect(l, t.dev[0].arch) == 64.0);
    char buf[16];
    pb_link_format(l, buf, sizeof buf);
    CHECK(strcmp(buf, "XGMI1") == 0);
    pb_ntopo_free(&t);
}

static void test_mi250(void)
{
    pb_ntopo_t t;
    if (!load(AMD("rccl-topo_8p_90a.xml"), &t)) {
        CHECK(0);
        return;
    }
    CHECK(t.ngpus == 8 && t.nnics == 1);
    CHECK(t.dev[0].vendor == 0x1002 && strcmp(t.dev[0].arch, "gfx90a") == 0);
    CHECK(is_link(pb_ntopo_link(&t, 0, 1, 0), PB_LINK_XGMI, 1));
    CHECK(is_link(pb_ntopo_link(&t, 0, 2, 0), PB_LINK_XGMI, 1));
    CHECK(is_link(pb_ntopo_link(&t, 0, 6, 0), PB_LINK_XGMI, 1));
    CHECK(is_link(pb_ntopo_link(&t, 0, 3, 0), PB_LINK_PHB, 0));
    /* --nvlink never applies to a file that states its AMD links */
    CHECK(is_link(pb_ntopo_link(&t, 0, 3, 4), PB_LINK_PHB, 0));
    CHECK(expect(pb_ntopo_link(&t, 0, 1, 0), "gfx90a") == 50.0);
    pb_ntopo_free(&t);

    if (!load(AMD("rccl-topo_16p1h.xml"), &t)) {
        CHECK(0);
        return;
    }
    CHECK(t.ngpus == 16 && strcmp(t.dev[0].busid, "0000:0e:00.0") == 0);
    CHECK(is_link(pb_ntopo_link(&t, 0, 1, 0), PB_LINK_XGMI, 4));
    CHECK(is_link(pb_ntopo_link(&t, 0, 4, 0), PB_LINK_XGMI, 2));
    CHECK(is_link(pb_ntopo_link(&t, 0, 8, 0), PB_LINK_XGMI, 1));
    CHECK(is_link(pb_ntopo_link(&t, 0, 12, 0), PB_LINK_SYS, 0));
    CHECK(expect(pb_ntopo_link(&t, 0, 1, 0), t.dev[0].arch) == 200.0);
    CHECK(expect(pb_ntopo_link(&t, 0, 4, 0), t.dev[0].arch) == 100.0);
    pb_ntopo_free(&t);
}

/* KFD's names and its counts against the XML it was rebuilt from. */
static void test_kfd(void)
{
    pb_kfd_t k;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_kfd_load(AMD("kfd-16p1h"), &k, &err) == PB_OK);
    CHECK(k.ngpus == 16);
    int g0 = -1, g1 = -1;
    for (int i = 0; i < k.ngpus; i++) {
        g0 = strcmp(k.gpu[i].busid, "0000:0e:00.0") == 0 ? i : g0;
        g1 = strcmp(k.gpu[i].busid, "0000:11:00.0") == 0 ? i : g1;
    }
    CHECK(g0 >= 0 && g1 >= 0);
    if (g0 < 0 || g1 < 0) {
        pb_kfd_free(&k);
        return;
    }
    CHECK(k.gpu[g0].id == 4 && k.gpu[g0].simd == 416 && strcmp(k.gpu[g0].arch, "gfx90a") == 0);
    CHECK(k.links[g0 * k.ngpus + g1] == 4 && k.max_mbps[g0 * k.ngpus + g1] == 200000.0);

    /* the live path: a topology's GPUs by bus id get arch and XGMI# */
    pb_topo_dev_t gpus[3];
    int xgmi[9] = {0}, nv[9] = {0};
    memset(gpus, 0, sizeof gpus);
    snprintf(gpus[0].busid, sizeof gpus[0].busid, "0000:0e:00.0");
    snprintf(gpus[1].busid, sizeof gpus[1].busid, "0000:11:00.0");
    snprintf(gpus[2].busid, sizeof gpus[2].busid, "0000:4E:00.0"); /* case does not matter */
    pb_topo_t tp;
    memset(&tp, 0, sizeof tp);
    tp.ngpus = 3;
    tp.gpus = gpus;
    tp.xgmi = xgmi;
    tp.nvlinks = nv;
    CHECK(pb_kfd_apply(&tp, &k) == 3 && tp.has_xgmi);
    CHECK(strcmp(gpus[2].arch, "gfx90a") == 0);
    CHECK(is_link(pb_topo_gpu_gpu(&tp, 0, 1), PB_LINK_XGMI, 4));
    CHECK(is_link(pb_topo_gpu_gpu(&tp, 2, 0), PB_LINK_XGMI, 2));
    pb_kfd_free(&k);

    /* no KFD (no AMD driver): no GPUs, no error */
    CHECK(pb_kfd_load(AMD("no-such-root"), &k, &err) == PB_OK && k.ngpus == 0);
    pb_kfd_free(&k);
}

static void put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A two-GPU tree written here: a hive pair the kernel lists with no
 * bandwidth (no direct link) is no XGMI#; a GPU node without its PCI
 * address is refused naming the file. */
static void test_kfd_edges(void)
{
    char dir[] = "/tmp/pb_kfd_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *mk[] = {"class", "class/kfd", "class/kfd/kfd", "class/kfd/kfd/topology",
                        "class/kfd/kfd/topology/nodes", "class/kfd/kfd/topology/nodes/0",
                        "class/kfd/kfd/topology/nodes/1", "class/kfd/kfd/topology/nodes/0/io_links",
                        "class/kfd/kfd/topology/nodes/0/io_links/0"};
    char path[512];
    for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, mk[i]);
        CHECK(mkdir(path, 0700) == 0);
    }
    const char *n = "class/kfd/kfd/topology/nodes/";
    char rel[256];
    snprintf(rel, sizeof rel, "%s0/properties", n);
    put(dir, rel, "gfx_target_version 90402\nlocation_id 3072\ndomain 0\n");
    snprintf(rel, sizeof rel, "%s1/properties", n);
    put(dir, rel, "gfx_target_version 90402\nlocation_id 5376\ndomain 0\n");
    snprintf(rel, sizeof rel, "%s0/io_links/0/properties", n);
    put(dir, rel, "type 11\nnode_from 0\nnode_to 1\nweight 30\nmin_bandwidth 0\nmax_bandwidth 0\n");
    pb_kfd_t k;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_kfd_load(dir, &k, &err) == PB_OK && k.ngpus == 2);
    if (k.ngpus == 2) {
        CHECK(k.links[1] == 0 && k.links[2] == 0);
        CHECK(strcmp(k.gpu[0].arch, "gfx942") == 0);
        /* 3072 = 0x0c00, 5376 = 0x1500: MI300X GPUs 0 and 1 of the RCCL file */
        CHECK(strcmp(k.gpu[0].busid, "0000:0c:00.0") == 0 || strcmp(k.gpu[1].busid, "0000:0c:00.0") == 0);
    }
    pb_kfd_free(&k);
    snprintf(rel, sizeof rel, "%s1/properties", n);
    put(dir, rel, "gfx_target_version 90402\ndomain 0\n");
    CHECK(pb_kfd_load(dir, &k, &err) == PB_EINPUT && strstr(err.msg, "location_id") != NULL);
    for (size_t i = sizeof mk / sizeof mk[0]; i-- > 0;) {
        snprintf(path, sizeof path, "%s/%s/properties", dir, mk[i]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", dir, mk[i]);
        rmdir(path);
    }
    rmdir(dir);
}

/* The architectures' xGMI rates (gfx_target_version's names are
 * test_kfd_node.c's, core/pb_kfd_node.h) */
static void test_arch_and_rates(void)
{
    /* per link and direction: MI250X 100/2, MI300X 128/2, MI355X 153.6/2 */
    CHECK(pb_vexpect_xgmi_per_link("gfx90a") == 50.0);
    CHECK(pb_vexpect_xgmi_per_link("gfx942") == 64.0);
    CHECK(pb_vexpect_xgmi_per_link("gfx950") == 76.8);
    CHECK(pb_vexpect_xgmi_per_link("gfx1100") == 0.0 && pb_vexpect_xgmi_per_link(NULL) == 0.0);
    /* seven links of an MI300X: 7 x 64 = 448 per direction, 896 both ways */
    CHECK(expect((pb_link_t){PB_LINK_XGMI, 7}, "gfx942") == 448.0);
    /* the class orders as NV# does: more links, faster; --expect names it */
    pb_link_t x4 = {PB_LINK_XGMI, 4}, x1 = {PB_LINK_XGMI, 1}, pix = {PB_LINK_PIX, 0};
    CHECK(pb_link_rank(x4) < pb_link_rank(x1) && pb_link_rank(x1) < pb_link_rank(pix));
    pb_link_t back = pb_link_from_rank(pb_link_rank(x4));
    CHECK(back.cls == PB_LINK_XGMI && back.nvlinks == 4);
    pb_vexpect_set_t s;
    memset(&s, 0, sizeof s);
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_vexpect_parse(&s, "XGMI=40", &err) == PB_OK);
    pb_vexpect_rank_t r = {64.0, 0.0, 0.0};
    pb_vexpect_t e;
    pb_vexpect_pair(&s, x1, &r, &r, 1, 1, 1, &e);
    CHECK(e.gbps == 40.0);
}

int main(void)
{
    test_mi300x();
    test_mi250();
    test_kfd();
    test_kfd_edges();
    test_arch_and_rates();
    PB_TEST_END("test_topo_amd");
}

/* test_kfd_node.c - issue 51: the one KFD node reader (core/pb_kfd_node.h)
 * that topo/, the HIP runtime table and the launcher's GPU count share:
 * gfx_target_version's names, a GPU found by its PCI address, GPUs
 * counted.  Every number by hand:
 *   gfx_target_version = major*10000 + minor*100 + stepping, minor and
 *   stepping the name's hex digits (the kernel's kfd_topology.c; the
 *   MI300X reports 90402, the MI250X 90010, the MI100 90008);
 *   location_id = bus << 8 | device << 3 | function (pci_dev_id());
 *   kfd-16p1h (tests/fixtures/amd/README.md): nodes 0-3 CPUs
 *   (gfx_target_version 0), 4-19 the 16 GCDs of the MI250X machine. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/pb_kfd_node.h"
#include "pb_test.h"

#define KFD16 PB_SOURCE_DIR "/tests/fixtures/amd/kfd-16p1h"

static void gfx_names(void)
{
    char b[16];
    CHECK(pb_kfd_gfx_name(90402, b, sizeof b) == 0 && strcmp(b, "gfx942") == 0);
    CHECK(pb_kfd_gfx_name(90010, b, sizeof b) == 0 && strcmp(b, "gfx90a") == 0);
    CHECK(pb_kfd_gfx_name(90008, b, sizeof b) == 0 && strcmp(b, "gfx908") == 0);
    CHECK(pb_kfd_gfx_name(90500, b, sizeof b) == 0 && strcmp(b, "gfx950") == 0);
    CHECK(pb_kfd_gfx_name(100300, b, sizeof b) == 0 && strcmp(b, "gfx1030") == 0);
    CHECK(pb_kfd_gfx_name(0, b, sizeof b) == -1 && b[0] == '\0'); /* a CPU node */
    CHECK(pb_kfd_gfx_name(90016, b, sizeof b) == -1 && b[0] == '\0'); /* stepping 16: no hex digit */
    CHECK(pb_kfd_gfx_name(90402, b, 4) == -1); /* "gfx942" does not fit 4 bytes */
}

/* dir/rel as a directory, every parent made */
static void mkdirs(const char *dir, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            (void)mkdir(path, 0700);
            *p = '/';
        }
    CHECK(mkdir(path, 0700) == 0);
}

static void write_node(const char *dir, const char *node, const char *text)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, PB_KFD_NODES "/%s", node);
    mkdirs(dir, rel);
    snprintf(path, sizeof path, "%s/%s/properties", dir, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A sysfs root of a CPU node and two GPUs; the GPU at 0000:c1:00.0 is
 * location_id 0xc100 = 49408 (bus 0xc1 << 8). */
static void kfd_fixture(void)
{
    char dir[] = "/tmp/pb_kfd_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_node(dir, "0", "cpu_cores_count 96\ngfx_target_version 0\ndomain 0\nlocation_id 0\n");
    write_node(dir, "1",
               "simd_count 1216\ngfx_target_version 90402\ndomain 0\nlocation_id 49408\n");
    write_node(dir, "2", "gfx_target_version 90010\ndomain 0\nlocation_id 1024\n");
    char arch[16] = "";
    CHECK(pb_kfd_arch_of(dir, "0000:c1:00.0", arch, sizeof arch) == 0 &&
          strcmp(arch, "gfx942") == 0);
    /* 0000:04:00.0: location_id 0x400 = 1024 */
    CHECK(pb_kfd_arch_of(dir, "0000:04:00.0", arch, sizeof arch) == 0 &&
          strcmp(arch, "gfx90a") == 0);
    CHECK(pb_kfd_arch_of(dir, "0000:05:00.0", arch, sizeof arch) == -1); /* no such GPU */
    CHECK(pb_kfd_arch_of(dir, "0001:c1:00.0", arch, sizeof arch) == -1); /* another domain */
    CHECK(pb_kfd_arch_of("/nonexistent", "0000:c1:00.0", arch, sizeof arch) == -1);

    /* node 1 read whole: 1216 SIMDs = 304 CUs x 4 (MI300X), bus id back */
    pb_kfd_node_t n;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_kfd_node_read(dir, 1, &n, &err) == PB_OK && n.id == 1 && n.gfx == 90402 &&
          n.simd == 1216 && n.location == 49408 && strcmp(n.busid, "0000:c1:00.0") == 0 &&
          strcmp(n.arch, "gfx942") == 0);
    CHECK(pb_kfd_node_read(dir, 0, &n, &err) == PB_OK && n.gfx == 0 && n.busid[0] == '\0');
    CHECK(pb_kfd_node_read(dir, 7, &n, &err) == PB_EINPUT && strstr(err.msg, "/7/properties"));
    CHECK(pb_kfd_gpu_count(dir) == 2); /* nodes 1 and 2; node 0 is a CPU */

    /* a GPU node without its PCI address: refused naming it, still a GPU */
    write_node(dir, "3", "gfx_target_version 90402\ndomain 0\n");
    pb_err_clear(&err); /* pb_err_t keeps the first error: node 7's */
    CHECK(pb_kfd_node_read(dir, 3, &n, &err) == PB_EINPUT && n.gfx == 90402 &&
          strstr(err.msg, "location_id") != NULL);
    CHECK(pb_kfd_gpu_count(dir) == 3);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* The real machine's tree: 16 GPUs of 20 nodes; none without KFD. */
static void counts_and_root(void)
{
    CHECK(pb_kfd_gpu_count(KFD16) == 16);
    int ids[PB_KFD_MAX_NODES];
    CHECK(pb_kfd_node_ids(KFD16, ids, PB_KFD_MAX_NODES) == 20);
    CHECK(pb_kfd_node_ids(KFD16, ids, 3) == 3); /* never past the caller's room */
    CHECK(pb_kfd_gpu_count(KFD16 "/no-such-root") == 0);
    CHECK(pb_kfd_node_ids(KFD16 "/no-such-root", ids, PB_KFD_MAX_NODES) == -1);
    /* node 4: location_id 3584 = 0x0e00 (bus 0e), simd_count 416 = 104 CUs x 4 */
    pb_kfd_node_t n;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_kfd_node_read(KFD16, 4, &n, &err) == PB_OK && strcmp(n.busid, "0000:0e:00.0") == 0 &&
          n.simd == 416 && strcmp(n.arch, "gfx90a") == 0);

    CHECK(setenv("PB_SYSFS_ROOT", KFD16, 1) == 0);
    CHECK(strcmp(pb_kfd_sysfs_root(), KFD16) == 0);
    CHECK(setenv("PB_SYSFS_ROOT", "", 1) == 0); /* empty: as unset */
    CHECK(strcmp(pb_kfd_sysfs_root(), "/sys") == 0);
    CHECK(unsetenv("PB_SYSFS_ROOT") == 0);
    CHECK(strcmp(pb_kfd_sysfs_root(), "/sys") == 0);
}

int main(void)
{
    gfx_names();
    kfd_fixture();
    counts_and_root();
    PB_TEST_END("unit_kfd_node");
}

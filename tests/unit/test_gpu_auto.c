/* issue 51: what "--backend auto" comes to by the GPUs and libraries a
 * node has (pb_backend_auto_pick), the registry's order that realises it
 * (nccl, rccl, mpi: pb_backend_list.def), and the AMD architecture read
 * from the KFD topology (collectives/pb_kfd_arch.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectives/pb_backend.h"
#include "collectives/pb_kfd_arch.h"
#include "pb_test.h"

static void auto_pick(void)
{
    /* the brief's table: NVIDIA GPUs -> nccl, AMD -> rccl, none -> mpi */
    CHECK(strcmp(pb_backend_auto_pick(8, 0, 1, 0), "nccl") == 0);
    CHECK(strcmp(pb_backend_auto_pick(0, 8, 0, 1), "rccl") == 0);
    CHECK(strcmp(pb_backend_auto_pick(0, 0, 1, 1), "mpi") == 0);
    /* GPUs without their library: mpi, as nccl's and rccl's available()
     * refuse */
    CHECK(strcmp(pb_backend_auto_pick(8, 0, 0, 1), "mpi") == 0);
    CHECK(strcmp(pb_backend_auto_pick(0, 8, 1, 0), "mpi") == 0);
    /* both kinds: NVIDIA's, first in the registry */
    CHECK(strcmp(pb_backend_auto_pick(2, 2, 1, 1), "nccl") == 0);
    /* the registry's order matches: nccl before rccl before mpi */
    int n = -1, r = -1, m = -1;
    for (int i = 0; i < pb_backend_count(); i++) {
        const char *name = pb_backend_at(i)->name;
        n = strcmp(name, "nccl") == 0 ? i : n;
        r = strcmp(name, "rccl") == 0 ? i : r;
        m = strcmp(name, "mpi") == 0 ? i : m;
    }
    if (n >= 0 && r >= 0)
        CHECK(n < r);
    if (r >= 0 && m >= 0)
        CHECK(r < m);
}

static void gfx_names(void)
{
    char b[16];
    /* gfx_target_version = major*10000 + minor*100 + stepping, minor and
     * stepping the name's hex digits (the kernel's kfd_topology.c; the
     * MI300X reports 90402, the MI250X 90010, the MI100 90008) */
    CHECK(pb_kfd_gfx_name(90402, b, sizeof b) == 0 && strcmp(b, "gfx942") == 0);
    CHECK(pb_kfd_gfx_name(90010, b, sizeof b) == 0 && strcmp(b, "gfx90a") == 0);
    CHECK(pb_kfd_gfx_name(90008, b, sizeof b) == 0 && strcmp(b, "gfx908") == 0);
    CHECK(pb_kfd_gfx_name(100300, b, sizeof b) == 0 && strcmp(b, "gfx1030") == 0);
    CHECK(pb_kfd_gfx_name(0, b, sizeof b) == -1);     /* a CPU node */
    CHECK(pb_kfd_gfx_name(90016, b, sizeof b) == -1); /* stepping 16: no hex digit */
}

static void write_node(const char *dir, const char *node, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, node);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/%s/properties", dir, node);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A topology of a CPU node and two GPUs; the GPU at 0000:c1:00.0 is
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
    CHECK(pb_kfd_arch_of("/nonexistent", "0000:c1:00.0", arch, sizeof arch) == -1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    auto_pick();
    gfx_names();
    kfd_fixture();
    PB_TEST_END("unit_gpu_auto");
}

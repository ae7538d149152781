/* issue 51: "--backend auto" takes the first backend of the registry
 * that is available on every rank, and each backend's available() asks
 * its own runtime for devices and its own library: so the registry's
 * order (pb_backend_list.def) is the rule - nccl on NVIDIA GPUs, else
 * rccl on AMD ones, else mpi.  The order is checked here; that auto
 * passes over nccl to rccl on a node with an AMD GPU is
 * cli_auto_tries_rccl. */
#include <string.h>

#include "collectives/pb_backend.h"
#include "pb_test.h"

static void auto_pick(void)
{
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

int main(void)
{
    auto_pick();
    PB_TEST_END("unit_gpu_auto");
}

/* The node map over MPI on this machine (run at 4 ranks on one host):
 * one node, local ranks 0..n-1, every pair classified on the node and
 * symmetric, never NET.  Host-rank classes come from the bindings, so the
 * expected class of each pair is recomputed here from the exchanged CPU
 * sets with this node's topology. */
#include <mpi.h>
#include <string.h>

#include "bench/pb_nodemap.h"
#include "pb_test.h"
#include "topo/pb_hostlink.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pb_topo_t tp;
    pb_nodemap_t m;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_topo_load(&tp, NULL, 0, &err) == PB_OK);
    CHECK(pb_nodemap_build(MPI_COMM_WORLD, &tp, &m, &err) == PB_OK);
    CHECK(m.size == size && m.nnodes == 1);
    int seen[64] = {0};
    for (int r = 0; r < size; r++) {
        const pb_rank_info_t *i = &m.ranks[r];
        CHECK(i->node == 0 && i->local_size == size);
        CHECK(i->local_rank >= 0 && i->local_rank < size && i->local_rank < 64);
        if (i->local_rank >= 0 && i->local_rank < 64)
            seen[i->local_rank]++;
        CHECK(strcmp(i->host, m.ranks[0].host) == 0);
        CHECK(i->gpu == -1); /* host ranks: no PCI discovery asked for */
    }
    for (int r = 0; r < size && r < 64; r++)
        CHECK(seen[r] == 1);
    hwloc_bitmap_t a = hwloc_bitmap_alloc(), b = hwloc_bitmap_alloc();
    for (int x = 0; x < size; x++)
        for (int y = 0; y < size; y++) {
            pb_link_t l = pb_nodemap_link(&m, x, y);
            pb_link_t back = pb_nodemap_link(&m, y, x);
            CHECK(l.cls == back.cls);
            CHECK(l.cls != PB_LINK_NET);
            if (hwloc_bitmap_list_sscanf(a, m.ranks[x].cpuset) != 0)
                hwloc_bitmap_zero(a);
            if (hwloc_bitmap_list_sscanf(b, m.ranks[y].cpuset) != 0)
                hwloc_bitmap_zero(b);
            CHECK(l.cls == pb_hostlink_class(tp.t, a, b));
        }
    /* the world's slowest pair is the slowest of any block */
    CHECK(pb_link_rank(pb_nodemap_block_slowest(&m, size)) >=
          pb_link_rank(pb_nodemap_block_slowest(&m, 1)));
    hwloc_bitmap_free(a);
    hwloc_bitmap_free(b);
    if (rank == 0) {
        char buf[16];
        pb_link_format(pb_nodemap_block_slowest(&m, size), buf, sizeof buf);
        printf("node map: %d ranks on host %s, slowest pair %s\n", size, m.ranks[0].host, buf);
    }
    pb_nodemap_free(&m);
    pb_topo_free(&tp);
    int fails = pb_test_failures;
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("nodemap: %s\n", fails ? "FAILED" : "all checks passed");
    return fails ? 1 : 0;
}

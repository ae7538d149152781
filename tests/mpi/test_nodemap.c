/* The node map over MPI.  test_nodemap [NODES]: the ranks run on NODES
 * nodes (default 1) with the same number of ranks each, filled in rank
 * order (mpirun's default: a node's slots before the next node's), as
 * tests/multinode/run2.sh launches them.  Each node holds local ranks
 * 0..n/NODES-1 under one host name, distinct between nodes; every pair is
 * symmetric, NET exactly when its ranks are on different nodes, and a
 * pair on one node is classified there.  Host-rank classes come from the
 * bindings, so the expected class of each such pair is recomputed here
 * from the exchanged CPU sets with this node's topology (the simulated
 * nodes share one machine's hardware, real ones are alike). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/pb_nodemap.h"
#include "collectives/pb_ctl_mpi.h"
#include "pb_test.h"
#include "topo/pb_hostlink.h"

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int rank = 0, size = 1;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS);
    int nodes = argc > 1 ? atoi(argv[1]) : 1;
    if (nodes < 1 || size % nodes != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: test_nodemap [NODES]: NODES must divide the %d ranks\n", size);
        MPI_Finalize();
        return 2;
    }
    int per = size / nodes; /* ranks on each node */
    pb_topo_t tp;
    pb_nodemap_t m;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_topo_load(&tp, NULL, 0, &err) == PB_OK);
    pb_ctl_t *world = pb_ctl_mpi_new(MPI_COMM_WORLD);
    CHECK(world != NULL);
    CHECK(pb_nodemap_build(world, &tp, &m, &err) == PB_OK);
    CHECK(m.size == size && m.nnodes == nodes);
    enum { MAXR = 64 };
    int seen[MAXR] = {0}; /* local rank x node: each seen once */
    for (int r = 0; r < size; r++) {
        int node = m.node[r], local = m.local[r];
        /* nodes are numbered in the order of their first ranks */
        CHECK(node == r / per && pb_rankmap_local_size(&m, r) == per);
        CHECK(local == r % per);
        int at = node * per + local;
        if (node >= 0 && node < nodes && local >= 0 && local < per && at < MAXR) {
            seen[at]++;
            CHECK(pb_rankmap_member(&m, node, local) == r);
        }
        /* one host name per node, another on every other node */
        for (int q = 0; q < r; q++)
            CHECK((strcmp(pb_rankmap_host(&m, r), pb_rankmap_host(&m, q)) == 0) ==
                  (q / per == r / per));
        CHECK(m.gpu[r] == -1); /* host ranks: no PCI discovery asked for */
        CHECK(strcmp(pb_rankmap_busid(&m, r), "-") == 0);
        CHECK(strcmp(pb_rankmap_nic(&m, r), "-") == 0);
    }
    for (int r = 0; r < size && r < MAXR; r++)
        CHECK(seen[r] == 1);
    hwloc_bitmap_t a = hwloc_bitmap_alloc(), b = hwloc_bitmap_alloc();
    for (int x = 0; x < size; x++)
        for (int y = 0; y < size; y++) {
            pb_link_t l = pb_nodemap_link(&m, x, y);
            pb_link_t back = pb_nodemap_link(&m, y, x);
            CHECK(l.cls == back.cls);
            CHECK((l.cls == PB_LINK_NET) == (x / per != y / per));
            if (x / per != y / per)
                continue;
            if (hwloc_bitmap_list_sscanf(a, pb_rankmap_cpuset(&m, x)) != 0)
                hwloc_bitmap_zero(a);
            if (hwloc_bitmap_list_sscanf(b, pb_rankmap_cpuset(&m, y)) != 0)
                hwloc_bitmap_zero(b);
            CHECK(l.cls == pb_hostlink_class(tp.t, a, b));
        }
    /* the world's slowest pair is the slowest of any block; a block of
     * one node's ranks stays inside it, the world crosses nodes when
     * there are several */
    CHECK(pb_link_rank(pb_nodemap_block_slowest(&m, size)) >=
          pb_link_rank(pb_nodemap_block_slowest(&m, 1)));
    CHECK(pb_nodemap_block_slowest(&m, 1).cls == PB_LINK_SELF);
    CHECK(pb_nodemap_block_slowest(&m, per).cls != PB_LINK_NET);
    CHECK((pb_nodemap_block_slowest(&m, size).cls == PB_LINK_NET) == (nodes > 1));
    hwloc_bitmap_free(a);
    hwloc_bitmap_free(b);
    /* O(W) memory: identical nodes share one local matrix (host ranks
     * bound alike; unbound ranks are all alike), and the rest is a few
     * ints per rank and node plus the labels: at most 16 B of labels per
     * rank here ("-", "-", a short binding), so 20 B + 16 B per rank, 12 B
     * per node and the matrices' ints bound it */
    CHECK(m.nshapes >= 1 && m.nshapes <= nodes);
    CHECK(pb_rankmap_bytes(&m) <= sizeof m + (size_t)size * 40 + (size_t)nodes * 90 +
                                      (size_t)m.nshapes * ((size_t)per * per * 4 + 12) + 16);
    if (rank == 0) {
        char buf[16];
        pb_link_format(pb_nodemap_block_slowest(&m, size), buf, sizeof buf);
        printf("node map: %d ranks on %d node%s (rank 0 on %s), slowest pair %s\n", size,
               m.nnodes, m.nnodes == 1 ? "" : "s", pb_rankmap_host(&m, 0), buf);
    }
    pb_nodemap_free(&m);
    pb_ctl_free(world);
    pb_topo_free(&tp);
    int fails = pb_test_failures;
    if (MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        fails++;
    MPI_Finalize();
    if (rank == 0)
        printf("nodemap: %s\n", fails ? "FAILED" : "all checks passed");
    return fails ? 1 : 0;
}

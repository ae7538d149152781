/* test_mpi_backend.c - the MPI backend driven directly, at any rank count.
 *
 * 1. Sub-groups: split by rank parity, all-reduce each rank's world rank;
 *    each group's sum is known in closed form.
 * 2. Splitting of large messages: with a 12-byte chunk limit (3 floats)
 *    every collective, in and out of place, at counts that leave partial
 *    last pieces, must give 0 wrong elements - the same code path that a
 *    > 2 GiB message takes with the default 1 GiB limit, without
 *    allocating gigabytes.
 * 3. The same without a chunk limit, as the reference.
 * 4. The checker is not blind: a corrupted element is counted. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "bench/pb_exec.h"
#include "pb_test.h"

static int world_rank, world_size;

static void test_split(pb_backend_t *be, pb_group_t *world)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    int color = world_rank % 2;
    CHECK(be->ops->split(world, color, world_rank, &g, &err) == PB_OK);
    if (g == NULL)
        return;
    /* members of color c are c, c+2, c+4, ... below world_size */
    int members = (world_size - color + 1) / 2;
    CHECK(g->size == members);
    CHECK(g->rank == world_rank / 2);
    double mine = (double)world_rank, sum = 0.0;
    CHECK(be->ops->allreduce(g, &mine, &sum, 1, PB_F64, PB_SUM, &err) == PB_OK);
    /* sum of c + 2i for i < members = members*c + members*(members-1) */
    double want = (double)members * color + (double)members * (members - 1);
    CHECK(sum == want);
    /* a rank may opt out of every group */
    pb_group_t *none = NULL;
    CHECK(be->ops->split(world, world_rank == 0 ? -1 : 0, world_rank, &none, &err) == PB_OK);
    CHECK((world_rank == 0) == (none == NULL));
    be->ops->group_free(none);
    be->ops->group_free(g);
}

static int sweep(pb_group_t *g, pb_dtype_t t, pb_redop_t red, uint64_t elems_per_block)
{
    int bad = 0;
    pb_err_t err;
    pb_err_clear(&err);
    uint64_t esz = pb_dtype_size(t), n = (uint64_t)g->size;
    pb_bufs_t b;
    uint64_t most = elems_per_block * n * esz;
    if (pb_bufs_alloc(g, most, &b, &err) != PB_OK)
        return 1;
    for (int c = 0; c < PB_COLL_COUNT; c++) {
        for (int place = 0; place < 2; place++) {
            pb_coll_t coll = (pb_coll_t)c;
            if (place ? !pb_coll_has_in_place(coll) : !pb_coll_has_out_of_place(coll))
                continue;
            uint64_t bytes = pb_coll_granule(coll, g->size, t) == esz
                                 ? elems_per_block * esz
                                 : most;
            pb_op_t op = {coll, t, red, g->size - 1, place, bytes, {0, 0, 0, 0}, 0, 0, 0, 0.0};
            uint64_t wrong = 99;
            if (pb_op_setup(&op, g, &b, &err) != PB_OK ||
                pb_op_verify(g, &op, &b, 0, &wrong, &err) != PB_OK) {
                fprintf(stderr, "rank %d: %s\n", world_rank, err.msg);
                bad++;
                continue;
            }
            if (wrong != 0) {
                fprintf(stderr, "rank %d: %s %s %s %s: %llu wrong\n", world_rank,
                        pb_coll_name(coll), pb_dtype_name(t), pb_redop_name(red),
                        place ? "in-place" : "out-of-place", (unsigned long long)wrong);
                bad++;
            }
        }
    }
    pb_bufs_free(g, &b);
    return bad;
}

static void test_collectives(uint64_t chunk, const char *what)
{
    pb_backend_t be = {pb_backend_find("mpi"), NULL};
    MPI_Comm w = MPI_COMM_WORLD;
    pb_backend_config_t cfg = {&w, PB_MEM_HOST, chunk, 0.0};
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(be.ops->init(&be, &cfg, &err) == PB_OK);
    pb_group_t *g = NULL;
    CHECK(be.ops->world(&be, &g, &err) == PB_OK);
    int bad = 0;
    /* 7 and 10 elements per block: 3 pieces of 3 and a piece of 1 */
    for (int t = 0; t < PB_DTYPE_COUNT; t++)
        for (int r = 0; r < PB_AVG; r++)
            for (uint64_t e = 7; e <= 10; e += 3)
                bad += sweep(g, (pb_dtype_t)t, (pb_redop_t)r, e);
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total && world_rank == 0)
        fprintf(stderr, "%s: %d failing cases\n", what, total);
    CHECK(total == 0);
    if (world_rank == 0)
        printf("%s: every collective, dtype and reduction verified\n", what);
    if (what[0] == 'c')
        test_split(&be, g);
    be.ops->group_free(g);
    be.ops->finalize(&be);
}

static void test_checker_sees_corruption(void)
{
    pb_backend_t be = {pb_backend_find("mpi"), NULL};
    MPI_Comm w = MPI_COMM_WORLD;
    pb_backend_config_t cfg = {&w, PB_MEM_HOST, 0, 0.0};
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(be.ops->init(&be, &cfg, &err) == PB_OK);
    pb_group_t *g = NULL;
    CHECK(be.ops->world(&be, &g, &err) == PB_OK);
    pb_bufs_t b;
    CHECK(pb_bufs_alloc(g, 4096, &b, &err) == PB_OK);
    pb_op_t op = {PB_ALLREDUCE, PB_F32, PB_SUM, 0, 0, 4096, {0, 0, 0, 0}, 0, 0, 0, 0.0};
    uint64_t wrong = 0;
    CHECK(pb_op_setup(&op, g, &b, &err) == PB_OK);
    CHECK(pb_op_verify(g, &op, &b, world_rank == world_size - 1, &wrong, &err) == PB_OK);
    /* exactly the one poked element, on exactly the one rank */
    CHECK(wrong == (world_rank == world_size - 1 ? 1u : 0u));
    pb_bufs_free(g, &b);
    be.ops->group_free(g);
    be.ops->finalize(&be);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    test_collectives(12, "chunked to 12 B");
    test_collectives(0, "unchunked");
    test_checker_sees_corruption();
    int fails = 0;
    MPI_Allreduce(&pb_test_failures, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (world_rank != 0)
        return fails ? 1 : 0;
    pb_test_failures = fails;
    PB_TEST_END("mpi_backend");
}

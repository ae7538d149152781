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
 * 4. The checker is not blind: a corrupted element is counted.
 * 5. Asynchronous mode: 2 and 3 again with set_async on (every collective
 *    left pending until the sweep's sync, chunked and not), three all-
 *    reduces completed by sync after busy(), busy() alone completing an
 *    all-reduce, set_async(0) and group_free completing what is pending.
 * 6. p2p_batch on a ring, tags keeping the two directions apart when
 *    next == previous (2 ranks), chunked and not, blocking and async.
 * 7. busy() lasts at least what it was asked.
 * 8. knob(): an Open MPI control variable written through MPI_T reads
 *    back, a group split after it works, NULL restores the launch's
 *    value, and what cannot change in a running process is refused with
 *    the launch setting that would (its launch value itself passes).
 * The backend is opened as a run opens it (pb_backend_open): the mpi
 * communication side with the host memory side, whose busy() drives the
 * MPI side's progress(). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/run/pb_exec.h"
#include "collectives/pb_ctl_mpi.h"
#include "collectives/pb_mpi_priv.h"
#include "pb_test.h"

static int world_rank, world_size;
static pb_ctl_t *world_ctl; /* the control world every backend opens on */

static void test_split(pb_backend_t *be, pb_group_t *world)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    int color = world_rank % 2;
    CHECK(be->comm->split(world, color, world_rank, &g, &err) == PB_OK);
    if (g == NULL)
        return;
    /* members of color c are c, c+2, c+4, ... below world_size */
    int members = (world_size - color + 1) / 2;
    CHECK(g->size == members);
    CHECK(g->rank == world_rank / 2);
    double mine = (double)world_rank, sum = 0.0;
    CHECK(be->comm->allreduce(g, &mine, &sum, 1, PB_F64, PB_SUM, &err) == PB_OK);
    /* sum of c + 2i for i < members = members*c + members*(members-1) */
    double want = (double)members * color + (double)members * (members - 1);
    CHECK(sum == want);
    /* a rank may opt out of every group */
    pb_group_t *none = NULL;
    CHECK(be->comm->split(world, world_rank == 0 ? -1 : 0, world_rank, &none, &err) == PB_OK);
    CHECK((world_rank == 0) == (none == NULL));
    be->comm->group_free(none);
    be->comm->group_free(g);
}

/* The value of an integer MPI_T control variable, -1 when unreadable. */
static int cvar_int(const char *name)
{
    int idx = -1, count = 0, v = -1, provided = 0;
    MPI_T_cvar_handle h;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    char nm[256], desc[8];
    int nl = sizeof nm, dl = sizeof desc, verb, bind, scope;
    MPI_Datatype dt = MPI_INT;
    MPI_T_enum en;
    if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS &&
        MPI_T_cvar_get_info(idx, nm, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) ==
            MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
        _Bool b = 0; /* Open MPI's switches are C bools */
        if (dt == MPI_C_BOOL && MPI_T_cvar_read(h, &b) == MPI_SUCCESS)
            v = b;
        else if (dt == MPI_INT)
            MPI_T_cvar_read(h, &v);
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    return v;
}

static void test_knob(pb_backend_t *be, pb_group_t *world)
{
    const char *alg = "coll_tuned_allreduce_algorithm";
    pb_err_t err;
    pb_err_clear(&err);
    int before = cvar_int(alg);
    CHECK(be->comm->knob != NULL);
    CHECK(be->comm->knob(be, alg, "4", &err) == PB_OK); /* ring */
    CHECK(cvar_int(alg) == 4);
    pb_group_t *g = NULL;
    CHECK(be->comm->split(world, 0, world_rank, &g, &err) == PB_OK && g != NULL);
    double mine = (double)world_rank, sum = 0.0;
    CHECK(be->comm->allreduce(g, &mine, &sum, 1, PB_F64, PB_SUM, &err) == PB_OK);
    CHECK(sum == (double)world_size * (world_size - 1) / 2.0); /* 0 + 1 + ... + (n-1) */
    be->comm->group_free(g);
    CHECK(be->comm->knob(be, alg, NULL, &err) == PB_OK);
    CHECK(cvar_int(alg) == before);
    /* read-only while running: the value the launch gave passes, another
     * is refused with the launch setting that gives it */
    const char *dyn = "coll_tuned_use_dynamic_rules";
    int launched = cvar_int(dyn);
    char same[16], other[16];
    snprintf(same, sizeof same, "%d", launched);
    snprintf(other, sizeof other, "%d", !launched);
    CHECK(be->comm->knob(be, dyn, same, &err) == PB_OK);
    CHECK(be->comm->knob(be, dyn, other, &err) == PB_EINPUT);
    char want[160];
    snprintf(want, sizeof want, "cannot change in a running process: set "
             "OMPI_MCA_coll_tuned_use_dynamic_rules=%d at launch", !launched);
    CHECK(strstr(err.msg, want) != NULL);
    CHECK(cvar_int(dyn) == launched);
    pb_err_clear(&err);
    CHECK(be->comm->knob(be, "no_such_variable", "1", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "this MPI has no control variable no_such_variable") != NULL);
    pb_err_clear(&err);
    CHECK(be->comm->knob(be, alg, "ring", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "takes an integer, not 'ring'") != NULL);
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

/* The mpi communication side composed with host memory, as a run gets it. */
static pb_backend_t make_backend(uint64_t chunk)
{
    pb_backend_t be;
    pb_backend_config_t cfg = {world_ctl, PB_MEM_HOST, chunk, 0.0, NULL};
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_backend_open(&be, pb_backend_find("mpi"), &cfg, &err) == PB_OK);
    CHECK(be.mem == &pb_host_mem_ops);
    return be;
}

static void test_collectives(uint64_t chunk, int async, const char *what)
{
    pb_backend_t be = make_backend(chunk);
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    CHECK(be.comm->world(&be, &g, &err) == PB_OK);
    /* asynchronous: every call returns once issued; the sweep's sync()
     * (pb_op_verify) completes it before the check */
    if (async)
        CHECK(be.comm->set_async(g, 1, &err) == PB_OK);
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
    if (what[0] == 'c' && !async) {
        test_split(&be, g);
        test_knob(&be, g);
    }
    be.comm->group_free(g);
    pb_backend_close(&be);
}

static void test_checker_sees_corruption(void)
{
    pb_backend_t be = make_backend(0);
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    CHECK(be.comm->world(&be, &g, &err) == PB_OK);
    pb_bufs_t b;
    CHECK(pb_bufs_alloc(g, 4096, &b, &err) == PB_OK);
    pb_op_t op = {PB_ALLREDUCE, PB_F32, PB_SUM, 0, 0, 4096, {0, 0, 0, 0}, 0, 0, 0, 0.0};
    uint64_t wrong = 0;
    CHECK(pb_op_setup(&op, g, &b, &err) == PB_OK);
    CHECK(pb_op_verify(g, &op, &b, world_rank == world_size - 1, &wrong, &err) == PB_OK);
    /* exactly the one poked element, on exactly the one rank */
    CHECK(wrong == (world_rank == world_size - 1 ? 1u : 0u));
    pb_bufs_free(g, &b);
    be.comm->group_free(g);
    pb_backend_close(&be);
}

static int pending_of(const pb_group_t *g)
{
    return ((const pb_mpi_group_t *)g->priv)->n_pending;
}

/* Ring exchange in one batch: to next = (r+1) % n with tag 0 (forward)
 * and to prev with tag 1 (backward), receiving the opposite.  Forward
 * element j from rank s is 1000*s + j, backward 100000 + 1000*s + j, so
 * a value names its sender and direction.  The directions carry
 * different counts (7 and 10 elements: with a 12-byte chunk, pieces of
 * 3+3+1 and 3+3+3+1): at 2 ranks next == prev and only the tags keep
 * them apart - swapped, the counts would not even match. */
static void test_p2p_ring(uint64_t chunk, int async)
{
    pb_backend_t be = make_backend(chunk);
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    CHECK(be.comm->world(&be, &g, &err) == PB_OK);
    if (async)
        CHECK(be.comm->set_async(g, 1, &err) == PB_OK);
    int n = g->size, r = g->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    enum { NF = 7, NB = 10 };
    int32_t sf[NF], sb[NB], rf[NF], rb[NB];
    for (int j = 0; j < NF; j++) {
        sf[j] = 1000 * r + j;
        rf[j] = -1;
    }
    for (int j = 0; j < NB; j++) {
        sb[j] = 100000 + 1000 * r + j;
        rb[j] = -1;
    }
    /* Sends go forward then backward, receives backward then forward:
     * at 2 ranks, pairing by order alone would match the first receive
     * (backward, 10) with the first send (forward, 7), so only the tags
     * can pair them right.  (NCCL pairs by order: callers of a device
     * backend keep one order on both sides; MPI's tags need not.) */
    pb_p2p_part_t parts[4] = {
        {0, next, 1, rb, NB},
        {1, next, 0, sf, NF},
        {1, prev, 1, sb, NB},
        {0, prev, 0, rf, NF},
    };
    CHECK(be.comm->p2p_batch(g, parts, 4, PB_I32, &err) == PB_OK);
    if (async) {
        CHECK(be.mem->busy(g, 0.001, &err) == PB_OK);
        CHECK(be.comm->sync(g, &err) == PB_OK);
    }
    CHECK(pending_of(g) == 0);
    int wrong = 0;
    for (int j = 0; j < NF; j++)
        wrong += rf[j] != 1000 * prev + j;
    for (int j = 0; j < NB; j++)
        wrong += rb[j] != 100000 + 1000 * next + j;
    CHECK(wrong == 0);
    /* a part naming no rank of the group is refused before anything is
     * posted */
    pb_p2p_part_t bad = {1, n, 0, sf, NF};
    CHECK(be.comm->p2p_batch(g, &bad, 1, PB_I32, &err) == PB_ERUNTIME);
    CHECK(pending_of(g) == 0);
    be.comm->group_free(g);
    pb_backend_close(&be);
}

/* Three all-reduces in flight at once, completed by sync() after a
 * busy() that drove them: each rank contributes rank + j, so element j
 * of the sum is n(n-1)/2 + n*j (exact in f32 and f64 at these sizes). */
static void test_async_allreduce(uint64_t chunk)
{
    pb_backend_t be = make_backend(chunk);
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    CHECK(be.comm->world(&be, &g, &err) == PB_OK);
    int n = g->size, r = g->rank;
    double tri = (double)n * (n - 1) / 2.0;
    float a[5], ra[5], c[4];
    double b[7], rb[7];
    for (int j = 0; j < 5; j++) {
        a[j] = (float)(r + j);
        ra[j] = -1.0f;
    }
    for (int j = 0; j < 7; j++) {
        b[j] = (double)(r + j);
        rb[j] = -1.0;
    }
    for (int j = 0; j < 4; j++)
        c[j] = (float)(r + j);
    CHECK(be.comm->set_async(g, 1, &err) == PB_OK);
    CHECK(be.comm->allreduce(g, a, ra, 5, PB_F32, PB_SUM, &err) == PB_OK);
    CHECK(be.comm->allreduce(g, b, rb, 7, PB_F64, PB_SUM, &err) == PB_OK);
    CHECK(be.comm->allreduce(g, c, c, 4, PB_F32, PB_SUM, &err) == PB_OK); /* in place */
    /* issued, not waited for: at least one request per call is pending */
    CHECK(pending_of(g) >= 3);
    CHECK(be.mem->busy(g, 0.005, &err) == PB_OK);
    CHECK(be.comm->sync(g, &err) == PB_OK);
    CHECK(pending_of(g) == 0);
    int wrong = 0;
    for (int j = 0; j < 5; j++)
        wrong += ra[j] != (float)(tri + (double)n * j);
    for (int j = 0; j < 7; j++)
        wrong += rb[j] != tri + (double)n * j;
    for (int j = 0; j < 4; j++)
        wrong += c[j] != (float)(tri + (double)n * j);
    CHECK(wrong == 0);

    /* busy() alone completes an operation: no sync, no other MPI call.
     * Open MPI moves a non-blocking collective only inside MPI calls, so
     * without busy()'s polling the list would never empty.  The bound
     * is a hang guard, not a speed target. */
    double one = 1.0, sum = 0.0;
    CHECK(be.comm->allreduce(g, &one, &sum, 1, PB_F64, PB_SUM, &err) == PB_OK);
    for (int i = 0; i < 10000 && pending_of(g) > 0; i++)
        CHECK(be.mem->busy(g, 0.001, &err) == PB_OK);
    CHECK(pending_of(g) == 0);
    CHECK(sum == (double)n);

    /* set_async(0) completes what is pending before returning */
    double mine = (double)r, total = -1.0;
    CHECK(be.comm->allreduce(g, &mine, &total, 1, PB_F64, PB_SUM, &err) == PB_OK);
    CHECK(be.comm->set_async(g, 0, &err) == PB_OK);
    CHECK(pending_of(g) == 0);
    CHECK(total == tri);
    CHECK(pb_mpi_state(g)->n_async == 0);
    /* and off, calls complete on return again: nothing left pending */
    CHECK(be.comm->allreduce(g, &mine, &total, 1, PB_F64, PB_SUM, &err) == PB_OK);
    CHECK(pending_of(g) == 0);
    CHECK(total == tri);

    /* a group freed with work pending completes it first (the sanitizer
     * build would report the requests and lists otherwise leaked) */
    CHECK(be.comm->set_async(g, 1, &err) == PB_OK);
    CHECK(pb_mpi_state(g)->n_async == 1);
    CHECK(be.comm->allreduce(g, &mine, &total, 1, PB_F64, PB_SUM, &err) == PB_OK);
    pb_mpi_state_t *st = pb_mpi_state(g);
    be.comm->group_free(g);
    CHECK(total == tri);
    CHECK(st->n_async == 0);
    pb_backend_close(&be);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* busy() spins at least as long as asked (a lower bound only: a shared
 * machine may stretch it, never shorten it). */
static void test_busy_lasts(void)
{
    pb_backend_t be = make_backend(0);
    pb_err_t err;
    pb_err_clear(&err);
    pb_group_t *g = NULL;
    CHECK(be.comm->world(&be, &g, &err) == PB_OK);
    double t0 = mono_s();
    CHECK(be.mem->busy(g, 0.01, &err) == PB_OK);
    CHECK(mono_s() - t0 >= 0.01);
    CHECK(be.mem->busy(g, 0.0, &err) == PB_OK); /* one progress poll */
    /* a NaN duration is refused rather than spun on forever */
    CHECK(be.mem->busy(g, NAN, &err) == PB_ERUNTIME);
    be.comm->group_free(g);
    pb_backend_close(&be);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    world_ctl = pb_ctl_mpi_new(MPI_COMM_WORLD);
    CHECK(world_ctl != NULL);
    test_collectives(12, 0, "chunked to 12 B");
    test_collectives(0, 0, "unchunked");
    test_collectives(12, 1, "async, chunked to 12 B");
    test_collectives(0, 1, "async, unchunked");
    test_checker_sees_corruption();
    for (int async = 0; async < 2; async++) {
        test_p2p_ring(12, async);
        test_p2p_ring(0, async);
    }
    test_async_allreduce(12);
    test_async_allreduce(0);
    test_busy_lasts();
    int fails = 0;
    MPI_Allreduce(&pb_test_failures, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    pb_ctl_free(world_ctl);
    MPI_Finalize();
    if (world_rank != 0)
        return fails ? 1 : 0;
    pb_test_failures = fails;
    PB_TEST_END("mpi_backend");
}

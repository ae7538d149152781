/* The CUDA memory side (collectives/pb_cuda_mem.c) in both of its modes:
 * with a stream, as NCCL's groups have (work issued, completed by sync),
 * and without one, as MPI on device memory has (every call complete on
 * return).  No other GPU test reaches the second mode: it needs a
 * CUDA-aware MPI, which Debian's is not.  So a minimal communication side
 * supplies the two things the memory side asks of one, stream() and
 * sync(); everything measured is the real memory side and its kernels.
 *
 * Per type: a fill checks with 0 wrong; one poked element is 1 wrong;
 * a copy of the fill checks with 0; poison makes every element wrong
 * (0xff bytes are NaN or -1, never an expected value); a reduction input
 * of one rank checks as its own reduction.  busy(50 ms) completes before
 * returning without a stream and only once synced with one (a lower
 * bound on the time, never an upper one: a shared GPU may be slower).
 * Skipped (77) where no GPU answers. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "collectives/pb_backend.h"
#include "pb_test.h"

static void *no_stream(const pb_group_t *g)
{
    (void)g;
    return NULL;
}

static void *its_stream(const pb_group_t *g) { return g->priv; }

static int stream_sync(pb_group_t *g, pb_err_t *err)
{
    cudaError_t rc = cudaStreamSynchronize((cudaStream_t)g->priv);
    return rc == cudaSuccess ? PB_OK
                             : pb_err_set(err, PB_ERUNTIME, "sync: %s", cudaGetErrorString(rc));
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* fill, poke, copy, poison and the reduction input of one type */
static void data_ops(pb_backend_t *be, pb_group_t *g, void *a, void *b, uint64_t n, pb_dtype_t t)
{
    const pb_mem_ops_t *m = be->mem;
    pb_err_t err;
    pb_err_clear(&err);
    uint64_t q = pb_check_move_q(t), w = 99;
    pb_expect_t e = {PB_EXPECT_PATTERN, 7, q, PB_SUM, 1, 1};
    CHECK(m->fill(g, a, n, t, 7, q, &err) == PB_OK);
    CHECK(m->check(g, a, n, t, &e, &w, &err) == PB_OK && w == 0);
    CHECK(m->poke(g, a, 5, t, pb_expect_value(&e, 5) + 1, &err) == PB_OK);
    CHECK(m->check(g, a, n, t, &e, &w, &err) == PB_OK && w == 1);
    CHECK(m->fill(g, a, n, t, 7, q, &err) == PB_OK);
    /* copy is a blocking copy outside the stream: order it after the fill */
    if (be->comm->stream(g) != NULL)
        CHECK(be->comm->sync(g, &err) == PB_OK);
    CHECK(m->copy(be, b, a, n * pb_dtype_size(t), &err) == PB_OK);
    CHECK(m->check(g, b, n, t, &e, &w, &err) == PB_OK && w == 0);
    CHECK(m->poison(g, b, n * pb_dtype_size(t), &err) == PB_OK);
    CHECK(m->check(g, b, n, t, &e, &w, &err) == PB_OK && w == n);
    pb_redparams_t p = pb_check_redparams(t, PB_SUM, 1);
    pb_expect_t r = {PB_EXPECT_REDUCED, 0, p.q, PB_SUM, 1, p.active};
    CHECK(m->fill_red(g, a, n, t, p, 0, 0, &err) == PB_OK);
    CHECK(m->check(g, a, n, t, &r, &w, &err) == PB_OK && w == 0);
    if (err.code)
        fprintf(stderr, "%s: %s\n", pb_dtype_name(t), err.msg);
}

static void run(int with_stream)
{
    pb_comm_ops_t comm;
    memset(&comm, 0, sizeof comm);
    comm.stream = with_stream ? its_stream : no_stream;
    comm.sync = stream_sync;
    pb_backend_t be;
    memset(&be, 0, sizeof be);
    be.comm = &comm;
    be.mem = &pb_cuda_mem_ops;
    pb_group_t g;
    memset(&g, 0, sizeof g);
    g.be = &be;
    g.size = 1;
    cudaStream_t s = NULL;
    if (with_stream)
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    g.priv = s;
    pb_err_t err;
    pb_err_clear(&err);
    const pb_mem_ops_t *m = be.mem;
    CHECK(m->init(&be, &err) == PB_OK);
    if (err.code) {
        fprintf(stderr, "init: %s\n", err.msg);
        return;
    }
    char info[256];
    m->device_info(&be, info, sizeof info);
    printf("%s: %s\n", with_stream ? "stream" : "no stream", info);
    CHECK(strncmp(info, "GPU ", 4) == 0);
    uint64_t avail = 0;
    int per_node = 1;
    char what[96];
    CHECK(m->mem_available(&be, &avail, &per_node, what, sizeof what) == 1 && avail > 0 &&
          per_node == 0);
    const uint64_t n = UINT64_C(1) << 20;
    void *a = NULL, *b = NULL;
    CHECK(m->alloc(&be, n * 8, &a, &err) == PB_OK && m->alloc(&be, n * 8, &b, &err) == PB_OK);
    const pb_dtype_t types[] = {PB_F32, PB_BF16, PB_F16, PB_I8, PB_F64, PB_I32};
    for (size_t k = 0; a && b && k < sizeof types / sizeof types[0]; k++)
        data_ops(&be, &g, a, b, n, types[k]);
    double t0 = now_s();
    CHECK(m->busy(&g, 0.05, &err) == PB_OK);
    double returned = now_s() - t0;
    if (with_stream)
        CHECK(comm.sync(&g, &err) == PB_OK);
    double complete = now_s() - t0;
    printf("  busy 50 ms: returned after %.1f ms, complete after %.1f ms\n", returned * 1e3,
           complete * 1e3);
    CHECK(complete >= 0.045);
    if (!with_stream)
        CHECK(returned >= 0.045);
    m->free(&be, a);
    m->free(&be, b);
    m->finalize(&be);
    if (s)
        cudaStreamDestroy(s);
}

int main(void)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess || n == 0) {
        printf("no CUDA device (cudaGetDeviceCount returned %d): skipped\n", (int)rc);
        return PB_TEST_SKIP;
    }
    run(0);
    run(1);
    PB_TEST_END("gpu_cuda_mem_modes");
}

/* The CUDA memory side: buffers in the GPU's memory, the data checks and
 * the compute stand-in as kernels (pb_cuda_kernels.cu).  CUDA builds
 * only.
 *
 * Shared by every communication side that moves device memory: NCCL,
 * whose groups have a stream, and a CUDA-aware MPI, whose have none.
 * With a stream, work is ordered on it and returns once issued (sync(g)
 * completes it; check and poke complete before returning); without one,
 * every call completes on the device before it returns, since the MPI
 * call that follows reads the memory from the host thread's view. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb_backend.h"
#include "pb_cuda_kernels.h"

typedef struct cuda_mem {
    unsigned long long *counter; /* device: wrong elements of one check */
    uint64_t busy_wave;          /* the busy kernel's wave, asked once */
    char info[256];              /* device_info's line */
} cuda_mem_t;

static cuda_mem_t *state(const pb_group_t *g) { return g->be->mem_priv; }

static void *stream_of(const pb_group_t *g) { return g->be->comm->stream(g); }

static int cuda_fail(cudaError_t rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s (%d)", call, cudaGetErrorString(rc),
                      (int)rc);
}

/* After issuing: nothing more on a stream; without one, the device
 * finishes first. */
static int issued(const pb_group_t *g, cudaError_t rc, const char *call, pb_err_t *err)
{
    if (rc == cudaSuccess && stream_of(g) == NULL)
        rc = cudaDeviceSynchronize();
    return rc == cudaSuccess ? PB_OK : cuda_fail(rc, call, err);
}

/* After issuing work whose result the host reads: wait for it, through
 * the communication side where there is a stream (it watches for hangs
 * while it waits). */
static int completed(pb_group_t *g, cudaError_t rc, const char *call, pb_err_t *err)
{
    if (rc != cudaSuccess)
        return cuda_fail(rc, call, err);
    if (stream_of(g) != NULL)
        return g->be->comm->sync(g, err);
    rc = cudaDeviceSynchronize();
    return rc == cudaSuccess ? PB_OK : cuda_fail(rc, call, err);
}

/* The communication side has bound the rank to its GPU: this describes
 * that one and takes the check counter on it. */
static int cuda_init(pb_backend_t *be, pb_err_t *err)
{
    cuda_mem_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the CUDA memory side");
    int dev = 0;
    char bus[32] = "?";
    struct cudaDeviceProp prop;
    cudaError_t rc = cudaGetDevice(&dev);
    if (rc == cudaSuccess)
        rc = cudaGetDeviceProperties(&prop, dev);
    if (rc == cudaSuccess)
        rc = cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev);
    if (rc == cudaSuccess)
        rc = cudaMalloc((void **)&st->counter, sizeof *st->counter);
    if (rc != cudaSuccess) {
        free(st);
        return cuda_fail(rc, "describing the GPU and taking its check counter", err);
    }
    snprintf(st->info, sizeof st->info, "GPU %d %.120s %.31s (sm_%d%d, %.0f GiB)", dev,
             prop.name, bus, prop.major, prop.minor, (double)prop.totalGlobalMem / 1073741824.0);
    be->mem_priv = st;
    return PB_OK;
}

static void cuda_finalize(pb_backend_t *be)
{
    cuda_mem_t *st = be->mem_priv;
    if (st == NULL)
        return;
    (void)cudaFree(st->counter); /* teardown: a failure could only repeat an earlier one */
    free(st);
    be->mem_priv = NULL;
}

static int cuda_alloc(pb_backend_t *be, uint64_t bytes, void **ptr, pb_err_t *err)
{
    (void)be;
    /* plain device memory, never managed: managed memory oversubscribed
     * can hang the GPU */
    cudaError_t rc = cudaMalloc(ptr, (size_t)(bytes ? bytes : 1));
    if (rc != cudaSuccess)
        return pb_err_set(err, PB_ERUNTIME, "cannot allocate %llu bytes of GPU memory: %s",
                          (unsigned long long)bytes, cudaGetErrorString(rc));
    return PB_OK;
}

static void cuda_free(pb_backend_t *be, void *ptr)
{
    (void)be;
    (void)cudaFree(ptr); /* an error here is a sticky one the next call reports */
}

static int cuda_copy(pb_backend_t *be, void *dst, const void *src, uint64_t bytes,
                     pb_err_t *err)
{
    (void)be;
    cudaError_t rc = cudaMemcpy(dst, src, (size_t)bytes, cudaMemcpyDefault);
    return rc == cudaSuccess ? PB_OK : cuda_fail(rc, "cudaMemcpy", err);
}

/* This GPU's free memory (cudaMemGetInfo).  One rank per GPU, so it is
 * this rank's alone. */
static int cuda_mem_available(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                              size_t len)
{
    (void)be;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    *bytes = (uint64_t)free_b;
    *per_node = 0;
    snprintf(what, len, "GPU memory (cudaMemGetInfo, of %.1f GiB)",
             (double)total_b / 1073741824.0);
    return 1;
}

static void cuda_device_info(pb_backend_t *be, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((cuda_mem_t *)be->mem_priv)->info);
}

static int cuda_fill(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, uint64_t base,
                     uint64_t q, pb_err_t *err)
{
    return issued(g, (cudaError_t)pb_cuda_fill(buf, n, t, base, q, stream_of(g)), "device fill",
                  err);
}

static int cuda_fill_red(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, pb_redparams_t p,
                         int rank, uint64_t first, pb_err_t *err)
{
    return issued(g,
                  (cudaError_t)pb_cuda_fill_red(buf, n, t, p, rank, first, stream_of(g)),
                  "device fill", err);
}

static int cuda_check(pb_group_t *g, const void *buf, uint64_t n, pb_dtype_t t,
                      const pb_expect_t *e, uint64_t *wrong, pb_err_t *err)
{
    unsigned long long *counter = state(g)->counter, host = 0;
    void *s = stream_of(g);
    cudaError_t rc = cudaMemsetAsync(counter, 0, sizeof *counter, s);
    if (rc == cudaSuccess)
        rc = (cudaError_t)pb_cuda_check(buf, n, t, e, counter, s);
    if (rc == cudaSuccess)
        rc = cudaMemcpyAsync(&host, counter, sizeof host, cudaMemcpyDeviceToHost, s);
    if (completed(g, rc, "device check", err) != PB_OK)
        return err->code;
    *wrong = host;
    return PB_OK;
}

static int cuda_poison(pb_group_t *g, void *buf, uint64_t bytes, pb_err_t *err)
{
    return issued(g, cudaMemsetAsync(buf, 0xff, (size_t)bytes, stream_of(g)), "cudaMemsetAsync",
                  err);
}

static int cuda_poke(pb_group_t *g, void *buf, uint64_t index, pb_dtype_t t, uint64_t value,
                     pb_err_t *err)
{
    unsigned char elem[8];
    pb_store_int(elem, 0, t, value); /* the host encoding is the device's */
    size_t esz = pb_dtype_size(t);
    return completed(g,
                     cudaMemcpyAsync((char *)buf + index * esz, elem, esz,
                                     cudaMemcpyHostToDevice, stream_of(g)),
                     "cudaMemcpyAsync", err);
}

static int cuda_busy(pb_group_t *g, double seconds, pb_err_t *err)
{
    return issued(g, (cudaError_t)pb_cuda_busy(seconds, stream_of(g), &state(g)->busy_wave),
                  "device busy kernel", err);
}

const pb_mem_ops_t pb_cuda_mem_ops = {
    .name = "cuda",
    .caps = PB_CAP_DEVICE_MEM | PB_CAP_BUSY,
    .init = cuda_init,
    .finalize = cuda_finalize,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .copy = cuda_copy,
    .mem_available = cuda_mem_available,
    .device_info = cuda_device_info,
    .fill = cuda_fill,
    .fill_red = cuda_fill_red,
    .check = cuda_check,
    .poison = cuda_poison,
    .poke = cuda_poke,
    .busy = cuda_busy,
};

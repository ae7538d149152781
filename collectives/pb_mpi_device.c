/* The MPI backend on device buffers (--memory device): a CUDA-aware MPI
 * moves GPU memory itself, so only memory management and the data
 * checks differ from the host backend.  This table is the host table
 * with those entries replaced; the MPI library is asked at run time
 * whether it really is CUDA-aware, since a build without it would fault
 * on the first device pointer. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpi-ext.h> /* Open MPI's extensions: after mpi.h, which it needs */
#include <stdio.h>
#include <string.h>

#include "pb_cuda_kernels.h"
#include "pb_cuda_mem.h"
#include "pb_mpi_priv.h"

extern const pb_backend_ops_t pb_mpi_backend_ops;

static int cuda_fail(cudaError_t rc, const char *what, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s", what, cudaGetErrorString(rc));
}

/* Every device step here is synchronous on the default stream: the MPI
 * calls that follow read the memory from the host thread's view. */
static int finish(cudaError_t rc, const char *what, pb_err_t *err)
{
    if (rc == cudaSuccess)
        rc = cudaDeviceSynchronize();
    return rc == cudaSuccess ? PB_OK : cuda_fail(rc, what, err);
}

int pb_mpi_device_supported(char *why, size_t len)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    if (MPIX_Query_cuda_support())
        return 1;
    snprintf(why, len, "--memory device needs a CUDA-aware MPI; this one says it is not "
                       "(MPIX_Query_cuda_support() = 0)");
#else
    snprintf(why, len, "--memory device needs a CUDA-aware MPI; this MPI has no "
                       "MPIX_Query_cuda_support to say so");
#endif
    return 0;
}

static int dev_alloc(pb_backend_t *be, uint64_t bytes, void **ptr, pb_err_t *err)
{
    (void)be;
    cudaError_t rc = cudaMalloc(ptr, (size_t)(bytes ? bytes : 1));
    return rc == cudaSuccess ? PB_OK : cuda_fail(rc, "cudaMalloc", err);
}

static void dev_free(pb_backend_t *be, void *ptr)
{
    (void)be;
    cudaFree(ptr);
}

static int dev_fill(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                    uint64_t q, pb_err_t *err)
{
    (void)g;
    return finish((cudaError_t)pb_cuda_fill(buf, count, t, base, q, NULL), "device fill", err);
}

static int dev_fill_red(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t,
                        pb_redparams_t p, int rank, uint64_t first, pb_err_t *err)
{
    (void)g;
    return finish((cudaError_t)pb_cuda_fill_red(buf, count, t, p, rank, first, NULL),
                  "device fill", err);
}

static int dev_check(pb_group_t *g, const void *buf, uint64_t count, pb_dtype_t t,
                     const pb_expect_t *e, uint64_t *wrong, pb_err_t *err)
{
    (void)g;
    unsigned long long *counter = NULL, host = 0;
    cudaError_t rc = cudaMalloc((void **)&counter, sizeof *counter);
    if (rc == cudaSuccess)
        rc = cudaMemset(counter, 0, sizeof *counter);
    if (rc == cudaSuccess)
        rc = (cudaError_t)pb_cuda_check(buf, count, t, e, counter, NULL);
    if (rc == cudaSuccess)
        rc = cudaMemcpy(&host, counter, sizeof host, cudaMemcpyDeviceToHost);
    cudaFree(counter);
    *wrong = host;
    return rc == cudaSuccess ? PB_OK : cuda_fail(rc, "device check", err);
}

static int dev_poison(pb_group_t *g, void *buf, uint64_t bytes, pb_err_t *err)
{
    (void)g;
    return finish(cudaMemset(buf, 0xff, (size_t)bytes), "cudaMemset", err);
}

static int dev_poke(pb_group_t *g, void *buf, uint64_t index, pb_dtype_t t, uint64_t value,
                    pb_err_t *err)
{
    (void)g;
    unsigned char elem[8];
    pb_store_int(elem, 0, t, value);
    size_t esz = pb_dtype_size(t);
    return finish(cudaMemcpy((char *)buf + index * esz, elem, esz, cudaMemcpyHostToDevice),
                  "cudaMemcpy", err);
}

static void dev_copy(void *dst, const void *src, size_t bytes)
{
    cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
}

/* The compute stand-in on the GPU that holds the buffers; like every
 * other call of this table it completes before returning. */
static int dev_busy(pb_group_t *g, double seconds, pb_err_t *err)
{
    return finish((cudaError_t)pb_cuda_busy(seconds, NULL, &pb_mpi_state(g)->busy_wave),
                  "device busy kernel", err);
}

const pb_backend_ops_t *pb_mpi_device_ops(pb_mpi_state_t *st)
{
    /* a per-instance copy of the host table: no global state */
    pb_backend_ops_t *ops_ = &st->device_ops;
    *ops_ = pb_mpi_backend_ops;
#define ops (*ops_)
    ops.description = "MPI on CUDA device memory (CUDA-aware MPI)";
    ops.alloc = dev_alloc;
    ops.free = dev_free;
    ops.mem_available = pb_cuda_mem_available;
    ops.fill = dev_fill;
    ops.fill_red = dev_fill_red;
    ops.check = dev_check;
    ops.poison = dev_poison;
    ops.poke = dev_poke;
    /* p2p_batch stays the host one: CUDA-aware point-to-point takes
     * device pointers.  No asynchronous mode: Open MPI 4's CUDA-aware
     * support covers point-to-point and the blocking collectives, not the
     * non-blocking ones (its FAQ, "Which MPI APIs work with CUDA-aware"),
     * and the in-place reduce-scatter's copies would have to be ordered
     * after device work.  Every call of this table completes on return. */
    ops.set_async = NULL;
    ops.busy = dev_busy;
#undef ops
    st->copy = dev_copy;
    return ops_;
}

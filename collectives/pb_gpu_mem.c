/* The GPU memory side: buffers in the GPU's memory, the data checks and
 * the compute stand-in as kernels, through a runtime table (pb_gpurt.h):
 * pb_cuda_mem_ops over CUDA (pb_cuda_kernels.cu), pb_hip_mem_ops over
 * HIP (pb_hip_kernels.h).  The two share every function but init, which
 * opens its runtime.
 *
 * Shared by every communication side that moves device memory: NCCL and
 * RCCL, whose groups have a stream, and a GPU-aware MPI, whose have none.
 * With a stream, work is ordered on it and returns once issued (sync(g)
 * completes it; check and poke complete before returning); without one,
 * every call completes on the device before it returns, since the MPI
 * call that follows reads the memory from the host thread's view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_backend.h"
#include "pb_gpu_native.h"
#include "pb_gpurt.h"

typedef struct gpu_mem {
    pb_gpurt_t rt;               /* the runtime this side opened */
    unsigned long long *counter; /* device: wrong elements of one check */
    uint64_t busy_wave;          /* the busy kernel's wave, asked once */
    char info[256];              /* device_info's line */
} gpu_mem_t;

static gpu_mem_t *state(const pb_group_t *g) { return g->be->mem_priv; }
static const pb_gpurt_t *rt_of(const pb_group_t *g) { return &state(g)->rt; }
static const pb_gpurt_t *be_rt(const pb_backend_t *be)
{
    return &((const gpu_mem_t *)be->mem_priv)->rt;
}

static void *stream_of(const pb_group_t *g) { return g->be->comm->stream(g); }

/* "cudaMemcpy failed: ..." / "hipMemcpy failed: ..." (call without the
 * runtime's prefix, or a description starting with a space) */
static int gpu_fail(const pb_gpurt_t *rt, int rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s%s failed: %s (%d)", call[0] == ' ' ? "" : rt->name,
                      call[0] == ' ' ? call + 1 : call, rt->err_string(rt, rc), rc);
}

/* After issuing: nothing more on a stream; without one, the device
 * finishes first. */
static int issued(const pb_group_t *g, int rc, const char *call, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    if (rc == 0 && stream_of(g) == NULL)
        rc = rt->device_sync(rt);
    return rc == 0 ? PB_OK : gpu_fail(rt, rc, call, err);
}

/* After issuing work whose result the host reads: wait for it, through
 * the communication side where there is a stream (it watches for hangs
 * while it waits). */
static int completed(pb_group_t *g, int rc, const char *call, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    if (rc != 0)
        return gpu_fail(rt, rc, call, err);
    if (stream_of(g) != NULL)
        return g->be->comm->sync(g, err);
    rc = rt->device_sync(rt);
    return rc == 0 ? PB_OK : gpu_fail(rt, rc, call, err);
}

/* The communication side has bound the rank to its GPU: this opens the
 * runtime, describes that GPU and takes the check counter on it. */
static int gpu_init(pb_backend_t *be, int (*open)(pb_gpurt_t *, char *, size_t), pb_err_t *err)
{
    gpu_mem_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the GPU memory side");
    char why[400];
    if (open(&st->rt, why, sizeof why) != 0) {
        free(st);
        return pb_err_set(err, PB_EINPUT, "%s", why);
    }
    const pb_gpurt_t *rt = &st->rt;
    int dev = 0;
    pb_gpu_props_t prop;
    void *counter = NULL;
#ifdef PARBENCH_HAVE_HIP
    /* HIP's kernels on this rank's GPU, bound by now (pb_gpurt_hip.c) */
    if (rt->vendor == PB_GPU_AMD && pb_gpurt_hip_kern_load(rt, why, sizeof why) != 0) {
        pb_gpurt_close(&st->rt);
        free(st);
        return pb_err_set(err, PB_ERUNTIME, "%s", why);
    }
#endif
    int rc = rt->get_device(rt, &dev);
    if (rc == 0)
        rc = rt->props(rt, dev, &prop); /* name, arch, bus id, memory */
    if (rc == 0)
        rc = rt->malloc(rt, &counter, sizeof *st->counter);
    if (rc != 0) {
        (void)gpu_fail(rt, rc, " describing the GPU and taking its check counter", err);
        pb_gpurt_close(&st->rt);
        free(st);
        return err->code;
    }
    st->counter = counter;
    snprintf(st->info, sizeof st->info, "GPU %d %.120s %.31s (%.20s, %.0f GiB)", dev, prop.name,
             prop.bus_id, prop.arch, (double)prop.total_mem / 1073741824.0);
#ifdef PARBENCH_HAVE_HIP
    if (rt->vendor == PB_GPU_AMD)
        snprintf(st->info + strlen(st->info), sizeof st->info - strlen(st->info), ", %.80s",
                 pb_gpurt_hip_kern_mode(rt));
#endif
    be->mem_priv = st;
    return PB_OK;
}

#ifdef PARBENCH_HAVE_CUDA
static int cuda_init(pb_backend_t *be, pb_err_t *err)
{
    return gpu_init(be, pb_gpurt_cuda_open, err);
}
#endif
#ifdef PARBENCH_HAVE_HIP
static int hip_init(pb_backend_t *be, pb_err_t *err)
{
    return gpu_init(be, pb_gpurt_hip_open, err);
}
#endif

int pb_gpu_mem_native(const void *mem_priv)
{
    const gpu_mem_t *st = mem_priv;
#ifdef PARBENCH_HAVE_HIP
    if (st != NULL && st->rt.vendor == PB_GPU_AMD)
        return pb_gpurt_hip_native(&st->rt);
#endif
    return st != NULL;
}

static void gpu_finalize(pb_backend_t *be)
{
    gpu_mem_t *st = be->mem_priv;
    if (st == NULL)
        return;
    /* teardown: a failure could only repeat an earlier one */
    (void)st->rt.free(&st->rt, st->counter);
    pb_gpurt_close(&st->rt);
    free(st);
    be->mem_priv = NULL;
}

static int gpu_alloc(pb_backend_t *be, uint64_t bytes, void **ptr, pb_err_t *err)
{
    const pb_gpurt_t *rt = be_rt(be);
    /* plain device memory, never managed: managed memory oversubscribed
     * can hang the GPU */
    int rc = rt->malloc(rt, ptr, (size_t)(bytes ? bytes : 1));
    if (rc != 0)
        return pb_err_set(err, PB_ERUNTIME, "cannot allocate %llu bytes of GPU memory: %s",
                          (unsigned long long)bytes, rt->err_string(rt, rc));
    return PB_OK;
}

static void gpu_free(pb_backend_t *be, void *ptr)
{
    const pb_gpurt_t *rt = be_rt(be);
    (void)rt->free(rt, ptr); /* an error here is a sticky one the next call reports */
}

static int gpu_copy(pb_backend_t *be, void *dst, const void *src, uint64_t bytes,
                    pb_err_t *err)
{
    const pb_gpurt_t *rt = be_rt(be);
    int rc = rt->memcpy(rt, dst, src, (size_t)bytes);
    return rc == 0 ? PB_OK : gpu_fail(rt, rc, "Memcpy", err);
}

/* This GPU's free memory (cudaMemGetInfo, hipMemGetInfo).  One rank per
 * GPU, so it is this rank's alone. */
static int gpu_mem_available(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                             size_t len)
{
    const pb_gpurt_t *rt = be_rt(be);
    size_t free_b = 0, total_b = 0;
    if (rt->mem_info(rt, &free_b, &total_b) != 0)
        return 0;
    *bytes = (uint64_t)free_b;
    *per_node = 0;
    snprintf(what, len, "GPU memory (%sMemGetInfo, of %.1f GiB)", rt->name,
             (double)total_b / 1073741824.0);
    return 1;
}

static void gpu_device_info(pb_backend_t *be, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((gpu_mem_t *)be->mem_priv)->info);
}

static int gpu_fill(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, uint64_t base,
                    uint64_t q, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    return issued(g, rt->fill(rt, buf, n, t, base, q, stream_of(g)), " device fill", err);
}

static int gpu_fill_red(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, pb_redparams_t p,
                        int rank, uint64_t first, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    return issued(g, rt->fill_red(rt, buf, n, t, p, rank, first, stream_of(g)), " device fill",
                  err);
}

static int gpu_check(pb_group_t *g, const void *buf, uint64_t n, pb_dtype_t t,
                     const pb_expect_t *e, uint64_t *wrong, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    unsigned long long *counter = state(g)->counter, host = 0;
    void *s = stream_of(g);
    int rc = rt->memset_async(rt, counter, 0, sizeof *counter, s);
    if (rc == 0)
        rc = rt->check(rt, buf, n, t, e, counter, s);
    if (rc == 0) /* device to host, inferred (pb_gpurt.h) */
        rc = rt->memcpy_async(rt, &host, counter, sizeof host, s);
    if (completed(g, rc, " device check", err) != PB_OK)
        return err->code;
    *wrong = host;
    return PB_OK;
}

static int gpu_poison(pb_group_t *g, void *buf, uint64_t bytes, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    return issued(g, rt->memset_async(rt, buf, 0xff, (size_t)bytes, stream_of(g)), "MemsetAsync",
                  err);
}

static int gpu_poke(pb_group_t *g, void *buf, uint64_t index, pb_dtype_t t, uint64_t value,
                    pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    unsigned char elem[8];
    pb_store_int(elem, 0, t, value); /* the host encoding is the device's */
    size_t esz = pb_dtype_size(t);
    return completed(g, rt->memcpy_async(rt, (char *)buf + index * esz, elem, esz, stream_of(g)),
                     "MemcpyAsync", err);
}

static int gpu_busy(pb_group_t *g, double seconds, pb_err_t *err)
{
    const pb_gpurt_t *rt = rt_of(g);
    return issued(g, rt->busy(rt, seconds, stream_of(g), &state(g)->busy_wave),
                  " device busy kernel", err);
}

/* Every entry but name and init. */
#define PB_GPU_MEM_OPS                                                                             \
    .caps = PB_CAP_DEVICE_MEM | PB_CAP_BUSY, .finalize = gpu_finalize, .alloc = gpu_alloc,         \
    .free = gpu_free, .copy = gpu_copy, .mem_available = gpu_mem_available,                        \
    .device_info = gpu_device_info, .fill = gpu_fill, .fill_red = gpu_fill_red,                    \
    .check = gpu_check, .poison = gpu_poison, .poke = gpu_poke, .busy = gpu_busy

#ifdef PARBENCH_HAVE_CUDA
const pb_mem_ops_t pb_cuda_mem_ops = {.name = "cuda", .init = cuda_init, PB_GPU_MEM_OPS};
#endif
/* PB_CAP_BUSY is taken back by pb_backend_open where the kernels run on
 * the host (pb_gpu_mem_native) */
#ifdef PARBENCH_HAVE_HIP
const pb_mem_ops_t pb_hip_mem_ops = {.name = "hip", .init = hip_init, PB_GPU_MEM_OPS};
#endif

/* pb_gpurt_cuda.c - the GPU runtime table over the linked CUDA runtime
 * (pb_gpurt.h): each entry is the cudart call the device code made
 * before the table existed, with the same flags, so that the NVIDIA
 * path behaves as it did.  The table argument is unused: cudart keeps
 * its state itself. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "pb_cuda_kernels.h"
#include "pb_gpurt.h"

static const char *c_err_string(const pb_gpurt_t *rt, int rc)
{
    (void)rt;
    return cudaGetErrorString((cudaError_t)rc);
}

static int c_get_last_error(const pb_gpurt_t *rt)
{
    (void)rt;
    return (int)cudaGetLastError();
}

static int c_driver_version(const pb_gpurt_t *rt, int *v)
{
    (void)rt;
    return (int)cudaDriverGetVersion(v);
}

static int c_runtime_version(const pb_gpurt_t *rt, int *v)
{
    (void)rt;
    return (int)cudaRuntimeGetVersion(v);
}

static int c_device_count(const pb_gpurt_t *rt, int *n)
{
    (void)rt;
    return (int)cudaGetDeviceCount(n);
}

static int c_set_device(const pb_gpurt_t *rt, int dev)
{
    (void)rt;
    return (int)cudaSetDevice(dev);
}

static int c_get_device(const pb_gpurt_t *rt, int *dev)
{
    (void)rt;
    return (int)cudaGetDevice(dev);
}

static int c_bus_id(const pb_gpurt_t *rt, int dev, char *buf, int len)
{
    (void)rt;
    return (int)cudaDeviceGetPCIBusId(buf, len, dev);
}

static int c_props(const pb_gpurt_t *rt, int dev, pb_gpu_props_t *out)
{
    struct cudaDeviceProp prop;
    memset(out, 0, sizeof *out);
    cudaError_t rc = cudaGetDeviceProperties(&prop, dev);
    if (rc != cudaSuccess)
        return (int)rc;
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", prop.major, prop.minor);
    out->total_mem = (uint64_t)prop.totalGlobalMem;
    out->units = prop.multiProcessorCount;
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    return c_bus_id(rt, dev, out->bus_id, (int)sizeof out->bus_id);
}

static int c_device_sync(const pb_gpurt_t *rt)
{
    (void)rt;
    return (int)cudaDeviceSynchronize();
}

static int c_mem_info(const pb_gpurt_t *rt, size_t *free_b, size_t *total_b)
{
    (void)rt;
    return (int)cudaMemGetInfo(free_b, total_b);
}

static int c_malloc(const pb_gpurt_t *rt, void **p, size_t bytes)
{
    (void)rt;
    return (int)cudaMalloc(p, bytes);
}

static int c_free(const pb_gpurt_t *rt, void *p)
{
    (void)rt;
    return (int)cudaFree(p);
}

static int c_host_alloc_mapped(const pb_gpurt_t *rt, void **host, size_t bytes)
{
    (void)rt;
    return (int)cudaHostAlloc(host, bytes, cudaHostAllocMapped);
}

static int c_host_free(const pb_gpurt_t *rt, void *host)
{
    (void)rt;
    return (int)cudaFreeHost(host);
}

static int c_host_dev_ptr(const pb_gpurt_t *rt, void **dev, void *host)
{
    (void)rt;
    return (int)cudaHostGetDevicePointer(dev, host, 0);
}

static int c_memcpy(const pb_gpurt_t *rt, void *dst, const void *src, size_t bytes)
{
    (void)rt;
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
}

static int c_memcpy_async(const pb_gpurt_t *rt, void *dst, const void *src, size_t bytes,
                          void *stream)
{
    (void)rt;
    /* cudaMemcpyDefault: unified addressing infers the direction, as the
     * DeviceToHost/HostToDevice the callers named before did */
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream);
}

static int c_memset_async(const pb_gpurt_t *rt, void *p, int v, size_t bytes, void *stream)
{
    (void)rt;
    return (int)cudaMemsetAsync(p, v, bytes, (cudaStream_t)stream);
}

static int c_stream_create(const pb_gpurt_t *rt, void **s)
{
    (void)rt;
    cudaStream_t st = NULL;
    cudaError_t rc = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    *s = st;
    return (int)rc;
}

static int c_stream_destroy(const pb_gpurt_t *rt, void *s)
{
    (void)rt;
    return (int)cudaStreamDestroy((cudaStream_t)s);
}

static int c_stream_sync(const pb_gpurt_t *rt, void *s)
{
    (void)rt;
    return (int)cudaStreamSynchronize((cudaStream_t)s);
}

static int c_stream_query(const pb_gpurt_t *rt, void *s)
{
    (void)rt;
    return (int)cudaStreamQuery((cudaStream_t)s);
}

static int c_event_create(const pb_gpurt_t *rt, void **e)
{
    (void)rt;
    cudaEvent_t ev = NULL;
    cudaError_t rc = cudaEventCreate(&ev); /* timing events, as before */
    *e = ev;
    return (int)rc;
}

static int c_event_destroy(const pb_gpurt_t *rt, void *e)
{
    (void)rt;
    return (int)cudaEventDestroy((cudaEvent_t)e);
}

static int c_event_record(const pb_gpurt_t *rt, void *e, void *s)
{
    (void)rt;
    return (int)cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s);
}

static int c_event_query(const pb_gpurt_t *rt, void *e)
{
    (void)rt;
    return (int)cudaEventQuery((cudaEvent_t)e);
}

static int c_event_sync(const pb_gpurt_t *rt, void *e)
{
    (void)rt;
    return (int)cudaEventSynchronize((cudaEvent_t)e);
}

static int c_event_elapsed_ms(const pb_gpurt_t *rt, float *ms, void *from, void *to)
{
    (void)rt;
    return (int)cudaEventElapsedTime(ms, (cudaEvent_t)from, (cudaEvent_t)to);
}

static int c_capture_begin(const pb_gpurt_t *rt, void *s)
{
    (void)rt;
    return (int)cudaStreamBeginCapture((cudaStream_t)s, cudaStreamCaptureModeThreadLocal);
}

static int c_capture_end(const pb_gpurt_t *rt, void *s, void **graph)
{
    (void)rt;
    cudaGraph_t gr = NULL;
    cudaError_t rc = cudaStreamEndCapture((cudaStream_t)s, &gr);
    *graph = gr;
    return (int)rc;
}

static int c_graph_instantiate(const pb_gpurt_t *rt, void **exec, void *graph)
{
    (void)rt;
    cudaGraphExec_t ex = NULL;
    cudaError_t rc = cudaGraphInstantiate(&ex, (cudaGraph_t)graph, 0);
    *exec = ex;
    return (int)rc;
}

static int c_graph_launch(const pb_gpurt_t *rt, void *exec, void *s)
{
    (void)rt;
    return (int)cudaGraphLaunch((cudaGraphExec_t)exec, (cudaStream_t)s);
}

static int c_graph_destroy(const pb_gpurt_t *rt, void *graph)
{
    (void)rt;
    return (int)cudaGraphDestroy((cudaGraph_t)graph);
}

static int c_graph_exec_destroy(const pb_gpurt_t *rt, void *exec)
{
    (void)rt;
    return (int)cudaGraphExecDestroy((cudaGraphExec_t)exec);
}

static int c_fill(const pb_gpurt_t *rt, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                  uint64_t q, void *stream)
{
    (void)rt;
    return pb_cuda_fill(buf, count, t, base, q, stream);
}

static int c_fill_red(const pb_gpurt_t *rt, void *buf, uint64_t count, pb_dtype_t t,
                      pb_redparams_t p, int rank, uint64_t first_global, void *stream)
{
    (void)rt;
    return pb_cuda_fill_red(buf, count, t, p, rank, first_global, stream);
}

static int c_check(const pb_gpurt_t *rt, const void *buf, uint64_t count, pb_dtype_t t,
                   const pb_expect_t *e, unsigned long long *counter, void *stream)
{
    (void)rt;
    return pb_cuda_check(buf, count, t, e, counter, stream);
}

static int c_stall(const pb_gpurt_t *rt, double seconds, void *stream, const volatile int *release)
{
    (void)rt;
    return pb_cuda_stall(seconds, stream, release);
}

static int c_busy(const pb_gpurt_t *rt, double seconds, void *stream, uint64_t *wave_cache)
{
    (void)rt;
    return pb_cuda_busy(seconds, stream, wave_cache);
}

static const pb_gpurt_t cuda_table = {
    .name = "cuda",
    .api = "CUDA",
    .vendor = PB_GPU_NVIDIA,
    .not_ready = (int)cudaErrorNotReady,
    .path = "",
    .lib = NULL,
    .priv = NULL,
    .err_string = c_err_string,
    .get_last_error = c_get_last_error,
    .driver_version = c_driver_version,
    .runtime_version = c_runtime_version,
    .device_count = c_device_count,
    .set_device = c_set_device,
    .get_device = c_get_device,
    .props = c_props,
    .bus_id = c_bus_id,
    .device_sync = c_device_sync,
    .mem_info = c_mem_info,
    .malloc = c_malloc,
    .free = c_free,
    .host_alloc_mapped = c_host_alloc_mapped,
    .host_free = c_host_free,
    .host_dev_ptr = c_host_dev_ptr,
    .memcpy = c_memcpy,
    .memcpy_async = c_memcpy_async,
    .memset_async = c_memset_async,
    .stream_create = c_stream_create,
    .stream_destroy = c_stream_destroy,
    .stream_sync = c_stream_sync,
    .stream_query = c_stream_query,
    .event_create = c_event_create,
    .event_destroy = c_event_destroy,
    .event_record = c_event_record,
    .event_query = c_event_query,
    .event_sync = c_event_sync,
    .event_elapsed_ms = c_event_elapsed_ms,
    .capture_begin = c_capture_begin,
    .capture_end = c_capture_end,
    .graph_instantiate = c_graph_instantiate,
    .graph_launch = c_graph_launch,
    .graph_destroy = c_graph_destroy,
    .graph_exec_destroy = c_graph_exec_destroy,
    .fill = c_fill,
    .fill_red = c_fill_red,
    .check = c_check,
    .stall = c_stall,
    .busy = c_busy,
};

int pb_gpurt_cuda_open(pb_gpurt_t *out, char *why, size_t len)
{
    (void)why;
    (void)len;
    *out = cuda_table;
    return 0;
}

#ifndef PARBENCH_HAVE_HIP
/* A CUDA-only build: the linked runtime holds nothing to release (with
 * HIP built in, pb_gpurt_hip.c's close serves both tables). */
void pb_gpurt_close(pb_gpurt_t *rt) { memset(rt, 0, sizeof *rt); }
#endif

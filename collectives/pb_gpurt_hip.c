/* pb_gpurt_hip.c - the GPU runtime table over libamdhip64, opened at run
 * time (pb_gpurt.h says why it is not linked).  Every entry point is
 * resolved when the library is opened (pb_hip_fns.h), so a library that
 * lacks one is refused by name before any call.  The flags are HIP's
 * counterparts of the CUDA table's: non-blocking streams, timing events,
 * mapped host memory, thread-local capture, direction-inferring copies. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/pb_kfd_node.h"
#include "pb_dl.h"
#include "pb_gpu_native.h"
#include "pb_gpurt.h"
#include "pb_hip_fns.h"
#include "pb_hip_kernels.h"

#define PB_HIP_ENV   "PARBENCH_HIP_LIB"
/* RTLD_NODELETE: the runtime's own threads and exit-time destructors
 * outlive a close, as NCCL's do (pb_nccl_lib.c) */
#define PB_HIP_DLFLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)

typedef struct hip_priv {
    pb_hip_fns_t f;
    /* the kernels, loaded at first use on the calling thread's device
     * (pb_gpurt_hip_kern_load): loaded by open, they would make a context
     * on device 0 in every rank before it binds its own GPU */
    pb_hip_kern_t *kern;
    int tried; /* a load was attempted; `why` holds its failure */
    char why[240];
} hip_priv_t;

static const pb_hip_fns_t *F(const pb_gpurt_t *rt) { return &((const hip_priv_t *)rt->priv)->f; }
static int load_kern(const pb_gpurt_t *rt, hip_priv_t *p);
static const pb_hip_kern_t *K(const pb_gpurt_t *rt)
{
    hip_priv_t *p = rt->priv;
    if (p->kern == NULL && !p->tried)
        (void)load_kern(rt, p); /* a failure stays in p->why, the kernels answer an error */
    return p->kern;
}

static const char *h_err_string(const pb_gpurt_t *rt, int rc)
{
    return F(rt)->GetErrorString((hipError_t)rc);
}

static int h_get_last_error(const pb_gpurt_t *rt) { return (int)F(rt)->GetLastError(); }
static int h_driver_version(const pb_gpurt_t *rt, int *v)
{
    return (int)F(rt)->DriverGetVersion(v);
}
static int h_runtime_version(const pb_gpurt_t *rt, int *v)
{
    return (int)F(rt)->RuntimeGetVersion(v);
}
static int h_device_count(const pb_gpurt_t *rt, int *n) { return (int)F(rt)->GetDeviceCount(n); }
static int h_set_device(const pb_gpurt_t *rt, int dev) { return (int)F(rt)->SetDevice(dev); }
static int h_get_device(const pb_gpurt_t *rt, int *dev) { return (int)F(rt)->GetDevice(dev); }
static int h_bus_id(const pb_gpurt_t *rt, int dev, char *buf, int len)
{
    return (int)F(rt)->DeviceGetPCIBusId(buf, len, dev);
}

/* Scalars by attribute and by name, never through hipDeviceProp_t
 * (pb_hip_fns.h); the architecture from the KFD topology
 * (core/pb_kfd_node.h), "gfx?" where it cannot be read. */
static int h_props(const pb_gpurt_t *rt, int dev, pb_gpu_props_t *out)
{
    const pb_hip_fns_t *f = F(rt);
    memset(out, 0, sizeof *out);
    size_t total = 0;
    hipError_t rc = f->DeviceGetName(out->name, (int)sizeof out->name, dev);
    if (rc == hipSuccess)
        rc = f->DeviceTotalMem(&total, dev);
    if (rc == hipSuccess)
        rc = f->DeviceGetAttribute(&out->units, hipDeviceAttributeMultiprocessorCount, dev);
    if (rc == hipSuccess)
        rc = f->DeviceGetPCIBusId(out->bus_id, (int)sizeof out->bus_id, dev);
    if (rc != hipSuccess)
        return (int)rc;
    out->total_mem = (uint64_t)total;
    if (pb_kfd_arch_of(pb_kfd_sysfs_root(), out->bus_id, out->arch, sizeof out->arch) != 0)
        snprintf(out->arch, sizeof out->arch, "gfx?");
    return 0;
}

static int h_device_sync(const pb_gpurt_t *rt) { return (int)F(rt)->DeviceSynchronize(); }
static int h_mem_info(const pb_gpurt_t *rt, size_t *free_b, size_t *total_b)
{
    return (int)F(rt)->MemGetInfo(free_b, total_b);
}
static int h_malloc(const pb_gpurt_t *rt, void **p, size_t bytes)
{
    return (int)F(rt)->Malloc(p, bytes);
}
static int h_free(const pb_gpurt_t *rt, void *p) { return (int)F(rt)->Free(p); }
static int h_host_alloc_mapped(const pb_gpurt_t *rt, void **host, size_t bytes)
{
    return (int)F(rt)->HostMalloc(host, bytes, hipHostMallocMapped);
}
static int h_host_free(const pb_gpurt_t *rt, void *host) { return (int)F(rt)->HostFree(host); }
static int h_host_dev_ptr(const pb_gpurt_t *rt, void **dev, void *host)
{
    return (int)F(rt)->HostGetDevicePointer(dev, host, 0);
}
static int h_memcpy(const pb_gpurt_t *rt, void *dst, const void *src, size_t bytes)
{
    return (int)F(rt)->Memcpy(dst, src, bytes, hipMemcpyDefault);
}
static int h_memcpy_async(const pb_gpurt_t *rt, void *dst, const void *src, size_t bytes,
                          void *stream)
{
    return (int)F(rt)->MemcpyAsync(dst, src, bytes, hipMemcpyDefault, (hipStream_t)stream);
}
static int h_memset_async(const pb_gpurt_t *rt, void *p, int v, size_t bytes, void *stream)
{
    return (int)F(rt)->MemsetAsync(p, v, bytes, (hipStream_t)stream);
}
static int h_stream_create(const pb_gpurt_t *rt, void **s)
{
    hipStream_t st = NULL;
    hipError_t rc = F(rt)->StreamCreateWithFlags(&st, hipStreamNonBlocking);
    *s = st;
    return (int)rc;
}
static int h_stream_destroy(const pb_gpurt_t *rt, void *s)
{
    return (int)F(rt)->StreamDestroy((hipStream_t)s);
}
static int h_stream_sync(const pb_gpurt_t *rt, void *s)
{
    return (int)F(rt)->StreamSynchronize((hipStream_t)s);
}
static int h_stream_query(const pb_gpurt_t *rt, void *s)
{
    return (int)F(rt)->StreamQuery((hipStream_t)s);
}
static int h_event_create(const pb_gpurt_t *rt, void **e)
{
    hipEvent_t ev = NULL;
    hipError_t rc = F(rt)->EventCreate(&ev); /* timing events, as CUDA's */
    *e = ev;
    return (int)rc;
}
static int h_event_destroy(const pb_gpurt_t *rt, void *e)
{
    return (int)F(rt)->EventDestroy((hipEvent_t)e);
}
static int h_event_record(const pb_gpurt_t *rt, void *e, void *s)
{
    return (int)F(rt)->EventRecord((hipEvent_t)e, (hipStream_t)s);
}
static int h_event_query(const pb_gpurt_t *rt, void *e)
{
    return (int)F(rt)->EventQuery((hipEvent_t)e);
}
static int h_event_sync(const pb_gpurt_t *rt, void *e)
{
    return (int)F(rt)->EventSynchronize((hipEvent_t)e);
}
static int h_event_elapsed_ms(const pb_gpurt_t *rt, float *ms, void *from, void *to)
{
    return (int)F(rt)->EventElapsedTime(ms, (hipEvent_t)from, (hipEvent_t)to);
}
static int h_capture_begin(const pb_gpurt_t *rt, void *s)
{
    return (int)F(rt)->StreamBeginCapture((hipStream_t)s, hipStreamCaptureModeThreadLocal);
}
static int h_capture_end(const pb_gpurt_t *rt, void *s, void **graph)
{
    hipGraph_t gr = NULL;
    hipError_t rc = F(rt)->StreamEndCapture((hipStream_t)s, &gr);
    *graph = gr;
    return (int)rc;
}
static int h_graph_instantiate(const pb_gpurt_t *rt, void **exec, void *graph)
{
    hipGraphExec_t ex = NULL;
    hipError_t rc = F(rt)->GraphInstantiate(&ex, (hipGraph_t)graph, NULL, NULL, 0);
    *exec = ex;
    return (int)rc;
}
static int h_graph_launch(const pb_gpurt_t *rt, void *exec, void *s)
{
    return (int)F(rt)->GraphLaunch((hipGraphExec_t)exec, (hipStream_t)s);
}
static int h_graph_destroy(const pb_gpurt_t *rt, void *graph)
{
    return (int)F(rt)->GraphDestroy((hipGraph_t)graph);
}
static int h_graph_exec_destroy(const pb_gpurt_t *rt, void *exec)
{
    return (int)F(rt)->GraphExecDestroy((hipGraphExec_t)exec);
}

/* The kernels: hipErrorNotInitialized where none could be loaded
 * (pb_gpurt_hip_kern_load says why). */
static int h_fill(const pb_gpurt_t *rt, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                  uint64_t q, void *stream)
{
    return K(rt) ? pb_hip_fill(K(rt), buf, count, t, base, q, stream) : (int)hipErrorNotInitialized;
}
static int h_fill_red(const pb_gpurt_t *rt, void *buf, uint64_t count, pb_dtype_t t,
                      pb_redparams_t p, int rank, uint64_t first_global, void *stream)
{
    return K(rt) ? pb_hip_fill_red(K(rt), buf, count, t, p, rank, first_global, stream)
                 : (int)hipErrorNotInitialized;
}
static int h_check(const pb_gpurt_t *rt, const void *buf, uint64_t count, pb_dtype_t t,
                   const pb_expect_t *e, unsigned long long *counter, void *stream)
{
    return K(rt) ? pb_hip_check(K(rt), buf, count, t, e, counter, stream)
                 : (int)hipErrorNotInitialized;
}
static int h_stall(const pb_gpurt_t *rt, double seconds, void *stream, const volatile int *release)
{
    return K(rt) ? pb_hip_stall(K(rt), seconds, stream, release) : (int)hipErrorNotInitialized;
}
static int h_busy(const pb_gpurt_t *rt, double seconds, void *stream, uint64_t *wave_cache)
{
    return K(rt) ? pb_hip_busy(K(rt), seconds, stream, wave_cache) : (int)hipErrorNotInitialized;
}

static const pb_gpurt_t hip_table = {
    .name = "hip",
    .api = "HIP",
    .vendor = PB_GPU_AMD,
    .not_ready = (int)hipErrorNotReady,
    .path = "",
    .lib = NULL,
    .priv = NULL,
    .err_string = h_err_string,
    .get_last_error = h_get_last_error,
    .driver_version = h_driver_version,
    .runtime_version = h_runtime_version,
    .device_count = h_device_count,
    .set_device = h_set_device,
    .get_device = h_get_device,
    .props = h_props,
    .bus_id = h_bus_id,
    .device_sync = h_device_sync,
    .mem_info = h_mem_info,
    .malloc = h_malloc,
    .free = h_free,
    .host_alloc_mapped = h_host_alloc_mapped,
    .host_free = h_host_free,
    .host_dev_ptr = h_host_dev_ptr,
    .memcpy = h_memcpy,
    .memcpy_async = h_memcpy_async,
    .memset_async = h_memset_async,
    .stream_create = h_stream_create,
    .stream_destroy = h_stream_destroy,
    .stream_sync = h_stream_sync,
    .stream_query = h_stream_query,
    .event_create = h_event_create,
    .event_destroy = h_event_destroy,
    .event_record = h_event_record,
    .event_query = h_event_query,
    .event_sync = h_event_sync,
    .event_elapsed_ms = h_event_elapsed_ms,
    .capture_begin = h_capture_begin,
    .capture_end = h_capture_end,
    .graph_instantiate = h_graph_instantiate,
    .graph_launch = h_graph_launch,
    .graph_destroy = h_graph_destroy,
    .graph_exec_destroy = h_graph_exec_destroy,
    .fill = h_fill,
    .fill_red = h_fill_red,
    .check = h_check,
    .stall = h_stall,
    .busy = h_busy,
};

#define PB_HIP_ENTRY(member, sym) {#sym, offsetof(pb_hip_fns_t, member)},
static const struct {
    const char *name;
    size_t off;
} entries[] = {PB_HIP_FNS(PB_HIP_ENTRY)};

/* dlopen of the named file (PARBENCH_HIP_LIB) or of the sonames in
 * order: ROCm 6's, Debian 12's (ROCm 5), the development link. */
static void *open_lib(pb_gpurt_t *rt, char *why, size_t len)
{
    const char *named = getenv(PB_HIP_ENV);
    if (named != NULL && named[0] != '\0') {
        snprintf(rt->path, sizeof rt->path, "%s", named);
        void *h = dlopen(named, PB_HIP_DLFLAGS);
        if (h == NULL)
            snprintf(why, len, "no HIP runtime: %s=%.300s cannot be loaded", PB_HIP_ENV, named);
        return h;
    }
    static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(rt->path, sizeof rt->path, "%s", names[i]);
        void *h = dlopen(names[i], PB_HIP_DLFLAGS);
        if (h != NULL)
            return h;
    }
    snprintf(why, len,
             "no HIP runtime: libamdhip64.so.6/.so.5 not found on the loader's path "
             "(install ROCm, or name the file with %s)",
             PB_HIP_ENV);
    return NULL;
}

/* Every entry point (a machine without a GPU keeps a table that can
 * count devices: that is how "no AMD GPU" is told apart from "no HIP"). */
static int resolve(pb_gpurt_t *rt, hip_priv_t *p, char *why, size_t len)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (!pb_dl_sym(rt->lib, entries[i].name, (char *)&p->f + entries[i].off)) {
            snprintf(why, len, "%.300s has no %s, which parbench calls", rt->path, entries[i].name);
            return -1;
        }
    Dl_info info;
    void *addr = NULL;
    memcpy(&addr, &p->f.GetDeviceCount, sizeof addr);
    if (dladdr(addr, &info) != 0 && info.dli_fname != NULL)
        snprintf(rt->path, sizeof rt->path, "%s", info.dli_fname);
    return 0;
}

/* The kernels for the calling thread's current device's architecture
 * (the rank's, once bound).  0, or -1 with p->why. */
static int load_kern(const pb_gpurt_t *rt, hip_priv_t *p)
{
    p->tried = 1;
    int dev = 0;
    pb_gpu_props_t props;
    int rc = rt->get_device(rt, &dev);
    if (rc == 0)
        rc = rt->props(rt, dev, &props);
    if (rc != 0) {
        snprintf(p->why, sizeof p->why, "the HIP kernels: describing the device failed: %s",
                 rt->err_string(rt, rc));
        return -1;
    }
    return pb_hip_kern_open(rt->lib, props.arch, &p->kern, p->why, sizeof p->why) == 0 ? 0 : -1;
}

int pb_gpurt_hip_kern_load(const pb_gpurt_t *rt, char *why, size_t len)
{
    hip_priv_t *p = rt->priv;
    if (K(rt) != NULL)
        return 0;
    snprintf(why, len, "%s", p->why[0] ? p->why : "the HIP kernels could not be loaded");
    return -1;
}

/* Whether the kernel's KFD topology lists an AMD GPU, asked before the
 * runtime is loaded: loading libamdhip64 starts ROCm's HSA runtime (its
 * threads, its allocations kept until exit) in every process that merely
 * asks "is there an AMD GPU?" - every `--backend auto` run on an NVIDIA or
 * CPU node - and ROCm itself computes on no GPU the KFD does not list.
 * The sysfs tree is the kernel's and cannot hang (pb_kfd_node.h). */
static int kfd_lists_gpus(char *why, size_t len)
{
    const char *root = pb_kfd_sysfs_root();
    if (pb_kfd_gpu_count(root) > 0)
        return 1;
    snprintf(why, len,
             "no AMD GPU: the kernel's KFD topology (%.200s/%s) lists none (no amdgpu driver, "
             "or no AMD GPU)",
             root, PB_KFD_NODES);
    return 0;
}

int pb_gpurt_hip_open(pb_gpurt_t *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    if (!kfd_lists_gpus(why, len))
        return -1;
    *out = hip_table;
    hip_priv_t *p = calloc(1, sizeof *p);
    if (p == NULL) {
        memset(out, 0, sizeof *out);
        snprintf(why, len, "out of memory for the HIP runtime table");
        return -1;
    }
    out->lib = open_lib(out, why, len);
    out->priv = p;
    if (out->lib == NULL || resolve(out, p, why, len) != 0) {
        pb_gpurt_close(out);
        return -1;
    }
    return 0;
}

void pb_gpurt_close(pb_gpurt_t *rt)
{
    hip_priv_t *p = rt->priv;
    if (p != NULL && p->kern != NULL)
        pb_hip_kern_close(p->kern);
    free(p);
    if (rt->lib != NULL && dlclose(rt->lib) != 0)
        (void)dlerror(); /* nothing to undo: the handle is gone either way */
    memset(rt, 0, sizeof *rt);
}

int pb_gpurt_hip_native(const pb_gpurt_t *rt)
{
    return rt->priv != NULL && K(rt) != NULL && pb_hip_kern_native(K(rt));
}

const char *pb_gpurt_hip_kern_mode(const pb_gpurt_t *rt)
{
    return rt->priv != NULL && K(rt) != NULL ? pb_hip_kern_mode(K(rt)) : "no kernels loaded";
}

/* pb_hip_kern.c - pb_hip_kernels.h: the embedded code objects loaded
 * through the opened HIP runtime, and the launches of their kernels
 * (the host fallback: pb_hip_kern_host.c). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_hip_kern_priv.h"
#include "pb_hip_kobj.h"
#include "pb_busy_plan.h"
#include "../util/pb_dl.h"

#define THREADS 256u
/* HIP >= 5.3 reports the real-time clock's rate (kHz) as attribute 10017,
 * hipDeviceAttributeWallClockRate; HIP 5.2's header has no name for it
 * and its runtime refuses it, and then the rate is 100 MHz, that of
 * s_memrealtime on every target built (pb_hip_clock.h) */
#define PB_HIP_ATTR_WALL_CLOCK_KHZ 10017
#define PB_HIP_WALL_HZ_DEFAULT UINT64_C(100000000)
/* Resident 256-thread blocks per compute unit, for the busy kernel's
 * waves, where the runtime's occupancy query is missing or fails: a CDNA
 * CU has 4 SIMDs of up to 8 wave64s each (AMD's CDNA2 ISA guide), 32
 * waves, and a block is 4 of them */
#define PB_HIP_BLOCKS_PER_CU 8u

static const char *const kernel_names[PB_HIPK_N] = {
    "pb_hip_fill_kernel", "pb_hip_fill_red_kernel", "pb_hip_check_kernel",
    "pb_hip_stall_kernel", "pb_hip_busy_kernel"};

const char *pb_hip_kern_targets(void)
{
    return pb_hip_kobj_names;
}

int pb_hip_kobj_pick(const char *arch, char *base, size_t len)
{
    size_t n = strcspn(arch, ":");
    if (len == 0 || n >= len)
        return -1;
    memcpy(base, arch, n);
    base[n] = '\0';
    for (size_t i = 0; i < pb_hip_kobj_count; i++)
        if (strcmp(pb_hip_kobjs[i].target, base) == 0)
            return (int)i;
    return -1;
}

/* Every entry point, or the first one missing, named */
static int lookup(void *hip, pb_hip_api_t *api, char *why, size_t len)
{
    static const struct {
        const char *name;
        size_t off;
    } need[] = {
        {"hipModuleLoadData", offsetof(pb_hip_api_t, ModuleLoadData)},
        {"hipModuleGetFunction", offsetof(pb_hip_api_t, ModuleGetFunction)},
        {"hipModuleLaunchKernel", offsetof(pb_hip_api_t, ModuleLaunchKernel)},
        {"hipModuleUnload", offsetof(pb_hip_api_t, ModuleUnload)},
        {"hipMemcpy", offsetof(pb_hip_api_t, Memcpy)},
        {"hipMemcpyAsync", offsetof(pb_hip_api_t, MemcpyAsync)},
        {"hipStreamSynchronize", offsetof(pb_hip_api_t, StreamSynchronize)},
        {"hipDeviceGetAttribute", offsetof(pb_hip_api_t, DeviceGetAttribute)},
        {"hipGetDevice", offsetof(pb_hip_api_t, GetDevice)},
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!pb_dl_sym(hip, need[i].name, (char *)api + need[i].off)) {
            snprintf(why, len, "the HIP runtime has no %s (not libamdhip64?)", need[i].name);
            return -1;
        }
    int host_fn = pb_dl_sym(hip, "hipLaunchHostFunc", &api->LaunchHostFunc);
    int callback = pb_dl_sym(hip, "hipStreamAddCallback", &api->StreamAddCallback);
    if (!host_fn && !callback) {
        snprintf(why, len, "the HIP runtime has neither hipLaunchHostFunc nor hipStreamAddCallback");
        return -1;
    }
    (void)pb_dl_sym(hip, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", &api->Occupancy);
    return 0;
}

/* The code object of row `row` loaded, its five kernels found */
static int load(pb_hip_kern_t *k, int row, char *why, size_t len)
{
    const pb_hip_kobj_t *o = &pb_hip_kobjs[row];
    hipError_t rc = k->api.ModuleLoadData(&k->module, o->bytes);
    if (rc != hipSuccess) {
        k->module = NULL;
        snprintf(why, len, "hipModuleLoadData refused parbench's %s kernels (error %d)",
                 o->target, (int)rc);
        return -1;
    }
    for (int i = 0; i < PB_HIPK_N; i++) {
        rc = k->api.ModuleGetFunction(&k->fn[i], k->module, kernel_names[i]);
        if (rc != hipSuccess) {
            snprintf(why, len, "parbench's %s kernels lack %s (error %d)", o->target,
                     kernel_names[i], (int)rc);
            return -1;
        }
    }
    int dev = 0, khz = 0;
    k->wall_hz = PB_HIP_WALL_HZ_DEFAULT;
    if (k->api.GetDevice(&dev) == hipSuccess &&
        k->api.DeviceGetAttribute(&khz, (hipDeviceAttribute_t)PB_HIP_ATTR_WALL_CLOCK_KHZ, dev) ==
            hipSuccess &&
        khz > 0)
        k->wall_hz = (uint64_t)khz * 1000u;
    snprintf(k->mode, sizeof k->mode, "kernels for %s", o->target);
    return 0;
}

int pb_hip_kern_open(void *hip, const char *arch, pb_hip_kern_t **out, char *why, size_t len)
{
    *out = NULL;
    pb_hip_kern_t *k = calloc(1, sizeof *k);
    if (k == NULL) {
        snprintf(why, len, "out of memory for the HIP kernels' table");
        return -1;
    }
    if (lookup(hip, &k->api, why, len) != 0) {
        free(k);
        return -1;
    }
    char base[64] = "";
    int row = pb_hip_kobj_pick(arch, base, sizeof base);
    if (row < 0) {
        /* a target newer than the hipcc that built parbench */
        snprintf(k->mode, sizeof k->mode, "host fallback: no kernel for %.63s (built: %s)",
                 base[0] ? base : arch,
                 pb_hip_kobj_count ? pb_hip_kobj_names : "none");
    } else if (load(k, row, why, len) != 0) {
        pb_hip_kern_close(k);
        return -1;
    }
    *out = k;
    return 0;
}

void pb_hip_kern_close(pb_hip_kern_t *k)
{
    if (k == NULL)
        return;
    if (k->module != NULL)
        (void)k->api.ModuleUnload(k->module); /* at exit: nothing to do on failure */
    free(k);
}

const char *pb_hip_kern_mode(const pb_hip_kern_t *k)
{
    return k->mode;
}

int pb_hip_kern_native(const pb_hip_kern_t *k)
{
    return k->module != NULL;
}

/* ---- launches: the parameter lists are pb_hip_kernels.hip's, in order ---- */

/* Enough blocks to fill the GPU, few enough that the kernels' grid-stride
 * loops do the rest: counts are 64-bit, grid dimensions are not (as
 * pb_cuda_kernels.cu) */
static unsigned blocks_for(uint64_t count)
{
    uint64_t b = (count + THREADS - 1) / THREADS;
    return b == 0 ? 1u : b > 65535u ? 65535u : (unsigned)b;
}

static int launch(const pb_hip_kern_t *k, int which, unsigned blocks, void *stream, void **args)
{
    return (int)k->api.ModuleLaunchKernel(k->fn[which], blocks, 1, 1, THREADS, 1, 1, 0,
                                          (hipStream_t)stream, args, NULL);
}

/* HIP 5.2 has no fp8 type: those two go through the host checker */
static int on_device(const pb_hip_kern_t *k, pb_dtype_t t)
{
    return k->module != NULL && t != PB_F8E4M3 && t != PB_F8E5M2;
}

int pb_hip_fill(const pb_hip_kern_t *k, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                uint64_t q, void *stream)
{
    if (count == 0)
        return 0;
    if (!on_device(k, t))
        return pb_hip_host_fill(k, buf, count, t, base, q, NULL, 0, stream);
    int ti = (int)t;
    void *args[] = {&buf, &count, &ti, &base, &q};
    return launch(k, PB_HIPK_FILL, blocks_for(count), stream, args);
}

int pb_hip_fill_red(const pb_hip_kern_t *k, void *buf, uint64_t count, pb_dtype_t t,
                    pb_redparams_t p, int rank, uint64_t first_global, void *stream)
{
    if (count == 0)
        return 0;
    if (!on_device(k, t))
        return pb_hip_host_fill(k, buf, count, t, first_global, p.q, &p, rank, stream);
    int ti = (int)t;
    void *args[] = {&buf, &count, &ti, &p.q, &p.active, &rank, &first_global};
    return launch(k, PB_HIPK_FILL_RED, blocks_for(count), stream, args);
}

int pb_hip_check(const pb_hip_kern_t *k, const void *buf, uint64_t count, pb_dtype_t t,
                 const pb_expect_t *e, unsigned long long *counter, void *stream)
{
    if (count == 0)
        return 0;
    if (!on_device(k, t))
        return pb_hip_host_check(k, buf, count, t, e, counter, stream);
    int ti = (int)t, kind = (int)e->kind, op = (int)e->op, nranks = e->nranks;
    int active = e->active, is_float = t != PB_I32 && t != PB_I8 && t != PB_I64;
    uint64_t base = e->base, q = e->q;
    double exact_max = (double)pb_dtype_exact_max(t);
    void *args[] = {(void *)&buf, &count, &ti, &kind, &base, &q, &op,
                    &nranks, &active, &is_float, &exact_max, &counter};
    return launch(k, PB_HIPK_CHECK, blocks_for(count), stream, args);
}

/* seconds in ticks of the real-time clock, rounded; NaN, negative -> 0 */
static uint64_t ticks_of(const pb_hip_kern_t *k, double seconds)
{
    if (!(seconds > 0.0))
        return 0;
    return (uint64_t)llround(seconds * (double)k->wall_hz);
}

int pb_hip_stall(const pb_hip_kern_t *k, double seconds, void *stream,
                 const volatile int *release)
{
    if (!isfinite(seconds) || seconds > 1e6)
        return (int)hipErrorInvalidValue;
    if (k->module == NULL)
        return pb_hip_host_stall(k, seconds, stream, release);
    uint64_t ticks = ticks_of(k, seconds), poll = ticks_of(k, 1e-3);
    void *args[] = {&ticks, &poll, (void *)&release};
    return launch(k, PB_HIPK_STALL, 1, stream, args);
}

/* The compute stand-in (pb_busy_plan.h's launches and waves), as
 * pb_cuda_busy: every launch is waves x (CUs x resident blocks) blocks,
 * each spinning one slice of the real-time clock.  Not on the host
 * fallback: a host loop leaves the GPU's CUs free, which is not what a
 * layer's GEMMs do (pb_hip_kern_native says so to the memory side). */
int pb_hip_busy(const pb_hip_kern_t *k, double seconds, void *stream, uint64_t *wave_cache)
{
    if (!(seconds > 0.0))
        return 0;
    if (!isfinite(seconds) || seconds > 1e6)
        return (int)hipErrorInvalidValue;
    if (k->module == NULL)
        return (int)hipErrorNotSupported;
    if (*wave_cache == 0) {
        int dev = 0, cus = 0;
        hipError_t rc = k->api.GetDevice(&dev);
        if (rc == hipSuccess)
            rc = k->api.DeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, dev);
        if (rc != hipSuccess)
            return (int)rc;
        int per_cu = 0;
        if (k->api.Occupancy == NULL ||
            k->api.Occupancy(&per_cu, k->fn[PB_HIPK_BUSY], (int)THREADS, 0) != hipSuccess ||
            per_cu <= 0)
            per_cu = (int)PB_HIP_BLOCKS_PER_CU;
        *wave_cache = (uint64_t)(cus > 0 ? cus : 1) * (uint64_t)per_cu;
    }
    uint64_t ns = (uint64_t)llround(seconds * 1e9);
    for (uint64_t i = 0; i < pb_busy_launches(ns); i++) {
        uint64_t waves = 0, slice_ns = 0;
        pb_busy_launch(ns, i, &waves, &slice_ns);
        uint64_t ticks = ticks_of(k, (double)slice_ns * 1e-9), blocks = waves * *wave_cache;
        if (blocks > 0x7fffffffu)
            return (int)hipErrorInvalidValue;
        void *args[] = {&ticks};
        int rc = launch(k, PB_HIPK_BUSY, (unsigned)blocks, stream, args);
        if (rc != 0)
            return rc;
    }
    return 0;
}

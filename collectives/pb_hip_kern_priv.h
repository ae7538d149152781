/* pb_hip_kern_priv.h - what the two halves of pb_hip_kernels (the loader
 * and launches, pb_hip_kern.c; the host fallback, pb_hip_kern_host.c)
 * share: the HIP entry points looked up in the opened library.
 *
 * The types come from HIP's C header (hip/hip_runtime_api.h, compiled
 * as plain C with __HIP_PLATFORM_AMD__: it is C-clean), and only the
 * types: every call goes through these pointers, never a linked symbol. */
#ifndef PB_HIP_KERN_PRIV_H
#define PB_HIP_KERN_PRIV_H

#include <hip/hip_runtime_api.h>
#include <stdint.h>

#include "pb_hip_kernels.h"

enum { PB_HIPK_FILL, PB_HIPK_FILL_RED, PB_HIPK_CHECK, PB_HIPK_STALL, PB_HIPK_BUSY, PB_HIPK_N };

typedef struct pb_hip_api {
    hipError_t (*ModuleLoadData)(hipModule_t *m, const void *image);
    hipError_t (*ModuleGetFunction)(hipFunction_t *f, hipModule_t m, const char *name);
    hipError_t (*ModuleLaunchKernel)(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,
                                     unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                     hipStream_t s, void **args, void **extra);
    hipError_t (*ModuleUnload)(hipModule_t m);
    hipError_t (*Memcpy)(void *dst, const void *src, size_t n, hipMemcpyKind kind);
    hipError_t (*MemcpyAsync)(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                              hipStream_t s);
    hipError_t (*StreamSynchronize)(hipStream_t s);
    hipError_t (*DeviceGetAttribute)(int *v, hipDeviceAttribute_t a, int dev);
    hipError_t (*GetDevice)(int *dev);
    /* a host function on a stream: hipLaunchHostFunc where the library
     * has it, else hipStreamAddCallback (HIP 5.2's header declares the
     * first, but Debian's libamdhip64.so.5 exports only the second) */
    hipError_t (*LaunchHostFunc)(hipStream_t s, hipHostFn_t fn, void *data);
    hipError_t (*StreamAddCallback)(hipStream_t s, hipStreamCallback_t fn, void *data,
                                    unsigned flags);
    /* optional: resident blocks per CU for the busy kernel */
    hipError_t (*Occupancy)(int *blocks, hipFunction_t f, int threads, size_t shared);
} pb_hip_api_t;

struct pb_hip_kern {
    pb_hip_api_t api;
    hipModule_t module;              /* NULL: the host fallback */
    hipFunction_t fn[PB_HIPK_N];
    uint64_t wall_hz;                /* the real-time clock's rate (pb_hip_clock.h) */
    char mode[192];
};

/* The host fallback (pb_hip_kern_host.c): the same contracts as the
 * kernels, through copies and the host checker (pb_check.h). */
/* red NULL: the pattern (base + j) mod q; else rank's reduction input
 * with base the first element's global index (q unused) */
int pb_hip_host_fill(const pb_hip_kern_t *k, void *buf, uint64_t count, pb_dtype_t t,
                     uint64_t base, uint64_t q, const pb_redparams_t *red, int rank,
                     void *stream);
int pb_hip_host_check(const pb_hip_kern_t *k, const void *buf, uint64_t count, pb_dtype_t t,
                      const pb_expect_t *e, unsigned long long *counter, void *stream);
int pb_hip_host_stall(const pb_hip_kern_t *k, double seconds, void *stream,
                      const volatile int *release);

#endif

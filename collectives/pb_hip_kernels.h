/* pb_hip_kernels.h - the fill, check, stall and busy kernels on AMD GPUs,
 * callable from C: the same contracts, and the same arithmetic
 * (pb_check_math.h), as pb_cuda_kernels.h.
 *
 * Built by hipcc as code objects (`--genco`), one per AMD target the
 * installed hipcc supports (cmake/hip.cmake probes them and says which),
 * embedded in the binary and loaded with hipModuleLoadData through the
 * runtime opened at run time (pb_gpurt.h says why it is not linked).
 *
 * Where no code object matches the device (a target newer than the
 * hipcc that built parbench: Debian 12's HIP 5.2 stops at gfx940, the
 * MI300X is gfx942), fill and check run on the host through copies -
 * correct, slower, and named in the run's output by pb_hip_kern_mode -
 * and busy is refused, since a host loop does not occupy the GPU's
 * compute units as a layer's GEMMs do. */
#ifndef PB_HIP_KERNELS_H
#define PB_HIP_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "pb_check.h"
#include "../core/pb_dtype.h"

typedef struct pb_hip_kern pb_hip_kern_t;

/* The targets built in, space separated ("gfx908 gfx90a gfx940"); ""
 * when this build has none. */
const char *pb_hip_kern_targets(void);

/* hip: the dlopen handle of libamdhip64, where hipModuleLoadData,
 * hipModuleGetFunction, hipModuleLaunchKernel, hipModuleUnload,
 * hipMemcpy(Async), hipStreamSynchronize, hipGetDevice,
 * hipDeviceGetAttribute and hipLaunchHostFunc (or, in HIP 5.2's library,
 * which lacks it, hipStreamAddCallback) are looked up.  arch: the device's gcnArchName
 * ("gfx90a:sramecc+:xnack-"); the part before ':' picks the code
 * object.  0 with *out set (kernels, or the host fallback when no code
 * object matches), -1 with one line in `why` when the library lacks an
 * entry point or a matching code object fails to load. */
int pb_hip_kern_open(void *hip, const char *arch, pb_hip_kern_t **out, char *why, size_t len);
void pb_hip_kern_close(pb_hip_kern_t *k);

/* "kernels for gfx90a", or "host fallback: no kernel for gfx942 (built:
 * gfx908 gfx90a gfx940)": one line for the run's header. */
const char *pb_hip_kern_mode(const pb_hip_kern_t *k);
/* 1 when the kernels run on the device (busy is available). */
int pb_hip_kern_native(const pb_hip_kern_t *k);

/* All return a hipError_t as int (0 = hipSuccess) and run on `stream`
 * (a hipStream_t as void *), with pb_cuda_kernels.h's meanings. */
int pb_hip_fill(const pb_hip_kern_t *k, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                uint64_t q, void *stream);
int pb_hip_fill_red(const pb_hip_kern_t *k, void *buf, uint64_t count, pb_dtype_t t,
                    pb_redparams_t p, int rank, uint64_t first_global, void *stream);
int pb_hip_check(const pb_hip_kern_t *k, const void *buf, uint64_t count, pb_dtype_t t,
                 const pb_expect_t *e, unsigned long long *counter, void *stream);
int pb_hip_stall(const pb_hip_kern_t *k, double seconds, void *stream,
                 const volatile int *release);
int pb_hip_busy(const pb_hip_kern_t *k, double seconds, void *stream, uint64_t *wave_cache);

#endif

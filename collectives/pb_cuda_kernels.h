/* pb_cuda_kernels.h - fill, poison and check on the device, callable from
 * C.  Verification of a multi-GiB buffer then costs no host copy: only a
 * count of wrong elements comes back.  The expected values come from
 * pb_check_math.h, the same arithmetic the host checker uses. */
#ifndef PB_CUDA_KERNELS_H
#define PB_CUDA_KERNELS_H

#include <stdint.h>

#include "pb_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* All return a cudaError_t as int (0 = cudaSuccess) and run on `stream`
 * (a cudaStream_t passed as void * so C callers need no CUDA header). */
int pb_cuda_fill(void *buf, uint64_t count, pb_dtype_t t, uint64_t base, uint64_t q,
                 void *stream);
/* Zeros for ranks that do not contribute (rank >= p.active). */
int pb_cuda_fill_red(void *buf, uint64_t count, pb_dtype_t t, pb_redparams_t p, int rank,
                     uint64_t first_global, void *stream);
/* Adds the number of elements not matching `e` to *counter (device
 * memory, unsigned long long). */
int pb_cuda_check(const void *buf, uint64_t count, pb_dtype_t t, const pb_expect_t *e,
                  unsigned long long *counter, void *stream);

/* Occupies the stream for `seconds`: a GPU that stopped making progress.
 * `release` (device pointer to mapped host memory, or NULL): the kernel
 * ends early once the host sets it non-zero, so that aborting the
 * communicator is not held up behind it. */
int pb_cuda_stall(double seconds, void *stream, const volatile int *release);

/* Keeps every SM busy for `seconds` on `stream`, the compute stand-in of
 * the executed step: launches of a GEMM's length, each of waves of
 * 256-thread blocks spinning ~20 us (pb_busy_plan.h), so that other
 * streams' kernels interleave as they do with a layer's GEMMs.
 * *wave_cache: one wave's blocks, 0 until first asked (the caller keeps
 * it).  Returns once launched. */
int pb_cuda_busy(double seconds, void *stream, uint64_t *wave_cache);

#ifdef __cplusplus
}
#endif

#endif

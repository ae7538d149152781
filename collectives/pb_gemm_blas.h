/* pb_gemm_blas.h - the vendor part of the GEMM probe: a BLAS library's
 * handle on a stream, and one multiply enqueued on it.
 *
 * pb_gemm_dev.c holds everything else once, for both vendors: which GPU
 * runtime finds a device, the operands, their fill, the timing loop,
 * the description.  Device memory, streams and events come from the GPU
 * runtime table (pb_gpurt.h); this table adds only what differs between
 * cuBLAS (pb_gemm_cublas.c) and rocBLAS (pb_gemm_rocblas.c). */
#ifndef PB_GEMM_BLAS_H
#define PB_GEMM_BLAS_H

#include <stdint.h>

#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

typedef struct pb_gemm_blas {
    const char *name; /* "cuBLAS", "rocBLAS": for messages */
    /* Opens the library and makes a handle whose work goes on `stream`
     * (the runtime's stream, as void *); *state is what the calls below
     * take.  A missing library: one line naming it. */
    int (*open)(void **state, void *stream, pb_err_t *err);
    /* Y[M, N] = X[M, K] . W[K, N] as pb_gemm.h says (row-major, W stored
     * [N, K], fp32 accumulation), enqueued, not waited for. */
    int (*gemm)(void *state, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k, const void *x,
                const void *w, void *y, pb_err_t *err);
    void (*close)(void *state); /* no-op on NULL */
} pb_gemm_blas_t;

/* defined where the build has the vendor (PB_GEMM_CUBLAS, PB_GEMM_ROCBLAS
 * tell pb_gemm_dev.c which) */
extern const pb_gemm_blas_t pb_gemm_cublas_ops;
extern const pb_gemm_blas_t pb_gemm_rocblas_ops;

#endif

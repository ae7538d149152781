/* pb_gemm_rocblas.c - the GEMM probe's rocBLAS part (built with HIP;
 * rocBLAS is opened when an AMD device is, pb_rocblas.h says why and why
 * rocBLAS rather than hipBLASLt).  Device, operands and timing are
 * pb_gemm_dev.c's, shared with cuBLAS.
 *
 * rocblas_gemm_ex: inputs and output of one type (bf16, fp16, fp32),
 * compute type f32 (fp32 accumulation, as cuBLAS's COMPUTE_32F), the
 * standard algorithm (rocBLAS's own default choice: solution index 0,
 * no flags).  Its sizes are rocblas_int (32-bit): a shape past 2^31-1
 * in any dimension is refused in one line; rocblas_gemm_ex_64 exists
 * only in recent ROCm 6 releases, so one binary for ROCm 5 and 6 uses
 * the 32-bit call. */
#include <stdlib.h>

#include "pb_gemm_blas.h"
#include "pb_rocblas.h"

typedef struct rocblas_state {
    pb_rocblas_t lib;
    pb_rocblas_handle_t handle;
} rocblas_state_t;

static int roc_ok(const pb_rocblas_t *r, int s, const char *what, pb_err_t *err)
{
    if (s == PB_ROCBLAS_SUCCESS)
        return PB_OK;
    char name[96];
    return pb_err_set(err, PB_ERUNTIME, "rocBLAS: %s failed: %s (%d)", what,
                      pb_rocblas_status(r, s, name, sizeof name), s);
}

static void roc_close(void *state)
{
    rocblas_state_t *s = state;
    if (s == NULL)
        return;
    /* teardown after a failure: its codes would only repeat that failure */
    if (s->handle)
        (void)s->lib.destroy_handle(s->handle);
    pb_rocblas_close(&s->lib);
    free(s);
}

static int roc_open(void **state, void *stream, pb_err_t *err)
{
    *state = NULL;
    rocblas_state_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (pb_rocblas_open(&s->lib, err) != PB_OK) {
        free(s);
        return err->code;
    }
    if (roc_ok(&s->lib, s->lib.create_handle(&s->handle), "rocblas_create_handle", err) !=
        PB_OK) {
        s->handle = NULL;
        roc_close(s);
        return err->code;
    }
    if (roc_ok(&s->lib, s->lib.set_stream(s->handle, stream), "rocblas_set_stream", err) !=
        PB_OK) {
        roc_close(s);
        return err->code;
    }
    *state = s;
    return PB_OK;
}

/* The same column-major reading as cuBLAS's (pb_gemm_cublas.c): Y^T
 * (N x M) = W^T . X^T, op T on W with lda = K, X^T with ldb = K, Y^T
 * with ldc = ldd = N; C and D are the one output buffer (beta = 0). */
static int roc_gemm(void *state, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                    const void *x, const void *w, void *y, pb_err_t *err)
{
    rocblas_state_t *s = state;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return pb_err_set(err, PB_EINPUT,
                          "rocBLAS multiplies sizes up to 2^31-1 (rocblas_int); this shape "
                          "has a larger one");
    const int ty = pb_rocblas_dtype(t);
    const float alpha = 1.0f, beta = 0.0f; /* compute type f32 takes float scalars */
    return roc_ok(&s->lib,
                  s->lib.gemm_ex(s->handle, PB_ROCBLAS_OP_TRANSPOSE, PB_ROCBLAS_OP_NONE,
                                 (int32_t)n, (int32_t)m, (int32_t)k, &alpha, w, ty, (int32_t)k,
                                 x, ty, (int32_t)k, &beta, y, ty, (int32_t)n, y, ty, (int32_t)n,
                                 PB_ROCBLAS_F32_R, PB_ROCBLAS_ALGO_STANDARD, 0, 0u),
                  "rocblas_gemm_ex", err);
}

const pb_gemm_blas_t pb_gemm_rocblas_ops = {"rocBLAS", roc_open, roc_gemm, roc_close};

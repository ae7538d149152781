/* pb_gemm_cublas.c - the GEMM probe's cuBLAS part (built with CUDA only;
 * cuBLAS itself is opened when a device is, pb_cublas.h says why).  The
 * device, operands and timing are pb_gemm_dev.c's, shared with rocBLAS.
 *
 * cublasGemmEx_64: 64-bit sizes, inputs and output of one type (bf16,
 * fp16 or fp32), CUBLAS_COMPUTE_32F (fp32 accumulation; for fp32 inputs
 * this is true fp32, not TF32), the library's default algorithm choice. */
#include <stdlib.h>

#include "pb_cublas.h"
#include "pb_gemm_blas.h"

typedef struct cublas_state {
    pb_cublas_t cublas; /* the library's entry points, opened with the device */
    cublasHandle_t handle;
} cublas_state_t;

static int cublas_ok(const pb_cublas_t *c, cublasStatus_t s, const char *what, pb_err_t *err)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return PB_OK;
    return pb_err_set(err, PB_ERUNTIME, "cuBLAS: %s failed: %s (%s, %d)", what,
                      c->status_string(s), c->status_name(s), (int)s);
}

static cudaDataType_t data_type(pb_dtype_t t)
{
    return t == PB_BF16 ? CUDA_R_16BF : t == PB_F16 ? CUDA_R_16F : CUDA_R_32F;
}

static void cu_close(void *state)
{
    cublas_state_t *s = state;
    if (s == NULL)
        return;
    /* teardown after a failure: its codes would only repeat that failure */
    if (s->handle)
        (void)s->cublas.destroy(s->handle);
    pb_cublas_close(&s->cublas);
    free(s);
}

static int cu_open(void **state, void *stream, pb_err_t *err)
{
    *state = NULL;
    cublas_state_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (pb_cublas_open(&s->cublas, err) != PB_OK) {
        free(s);
        return err->code;
    }
    if (cublas_ok(&s->cublas, s->cublas.create(&s->handle), "cublasCreate", err) != PB_OK) {
        s->handle = NULL;
        cu_close(s);
        return err->code;
    }
    if (cublas_ok(&s->cublas, s->cublas.set_stream(s->handle, (cudaStream_t)stream),
                  "cublasSetStream", err) != PB_OK) {
        cu_close(s);
        return err->code;
    }
    *state = s;
    return PB_OK;
}

/* Y[M, N] = X[M, K] . W[K, N] in row-major terms is, column-major as
 * cuBLAS sees it, Y^T (N x M) = W^T . X^T.  W is stored as torch.nn.Linear
 * keeps its weight, [N, K] row-major = K x N column-major, hence op T on
 * it with lda = K; X^T is K x M column-major, ldb = K; Y^T has ldc = N. */
static int cu_gemm(void *state, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k, const void *x,
                   const void *w, void *y, pb_err_t *err)
{
    cublas_state_t *s = state;
    const cudaDataType_t ty = data_type(t);
    const float alpha = 1.0f, beta = 0.0f; /* COMPUTE_32F takes float scalars */
    return cublas_ok(&s->cublas,
                     s->cublas.gemm_ex_64(s->handle, CUBLAS_OP_T, CUBLAS_OP_N, (int64_t)n,
                                          (int64_t)m, (int64_t)k, &alpha, w, ty, (int64_t)k, x,
                                          ty, (int64_t)k, &beta, y, ty, (int64_t)n,
                                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx_64", err);
}

const pb_gemm_blas_t pb_gemm_cublas_ops = {"cuBLAS", cu_open, cu_gemm, cu_close};

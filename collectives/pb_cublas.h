/* pb_cublas.h - cuBLAS, opened when `parbench gemm` opens a device.
 *
 * Why not linked: a linked library is loaded into every rank of every
 * command, and cuBLAS (with cuBLASLt, which it needs) has the loader
 * write ~100 MB of its data before main.  That is not free for the ranks
 * that never multiply: a process that wrote ~100 MB before MPI_Init
 * moves a 16 MiB all-reduce through Open MPI's single-copy path (CMA) in
 * 0.84x the time of one that did not (doc/benchmarks.md, issue 35), so a
 * collective measured by a rank that carried cuBLAS is not what the same
 * collective costs a plain MPI loop or a training job that maps other
 * libraries.  Only gemm uses cuBLAS; only gemm maps it.  Kept loaded once
 * opened (RTLD_NODELETE): cuBLAS keeps per-thread state and exit
 * handlers that must outlive any one handle. */
#ifndef PB_CUBLAS_H
#define PB_CUBLAS_H

#include <cublas_v2.h>

#include "pb_err.h"

/* the entry points parbench uses, with cuBLAS's signatures (cublas_v2.h
 * maps cublasCreate and the others to their _v2 symbols) */
typedef struct pb_cublas {
    void *lib;
    cublasStatus_t (*create)(cublasHandle_t *handle);
    cublasStatus_t (*destroy)(cublasHandle_t handle);
    cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
    cublasStatus_t (*gemm_ex_64)(cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                 const void *alpha, const void *A, cudaDataType Atype,
                                 int64_t lda, const void *B, cudaDataType Btype, int64_t ldb,
                                 const void *beta, void *C, cudaDataType Ctype, int64_t ldc,
                                 cublasComputeType_t computeType, cublasGemmAlgo_t algo);
    const char *(*status_string)(cublasStatus_t status);
    const char *(*status_name)(cublasStatus_t status);
} pb_cublas_t;

/* Opens cuBLAS (the library the build found, by its soname); a clear
 * PB_ERUNTIME naming it when it is missing or lacks an entry point. */
int pb_cublas_open(pb_cublas_t *c, pb_err_t *err);
void pb_cublas_close(pb_cublas_t *c);

#endif

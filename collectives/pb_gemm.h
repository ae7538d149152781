/* pb_gemm.h - time one dense matrix multiply on this process's GPU.
 *
 * The compute-rate probe of `parbench gemm`: the model (a later issue)
 * divides a layer's FLOPs by what this measures.  A GPU build has
 * pb_gemm_dev.c (device, operands, timing over pb_gpurt.h) with the
 * BLAS of the vendor whose GPU it finds (pb_gemm_blas.h): cuBLAS
 * (pb_gemm_cublas.c) when a CUDA device is visible, else rocBLAS
 * (pb_gemm_rocblas.c) on an AMD one, each opened with the device.  A
 * build with neither runtime has pb_gemm_none.c (every call says so), so
 * callers need no #ifdef.
 *
 * Shapes are row-major Y[M, N] = X[M, K] . W[K, N]; the multiply is the
 * one torch.nn.functional.linear issues (cuBLAS "TN": W stored [N, K]),
 * inputs and output in the chosen type, accumulation in fp32. */
#ifndef PB_GEMM_H
#define PB_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "../util/pb_err.h"
#include "../core/pb_dtype.h"

typedef struct pb_gemm_dev pb_gemm_dev_t;

/* Visible devices of the vendor gemm uses: CUDA's when it finds one
 * (CUDA_VISIBLE_DEVICES applies), else HIP's (HIP_VISIBLE_DEVICES).  No
 * device, a driver too old or missing (cudaGetDeviceCount's 100 and 35),
 * no HIP runtime, or a build without either: PB_EINPUT and one line
 * saying which ("no CUDA device: ..., and no AMD GPU: ..."). */
int pb_gemm_device_count(int *count, pb_err_t *err);

/* Is t a type the probe multiplies (bf16, fp16, fp32)? */
int pb_gemm_dtype_ok(pb_dtype_t t);

/* Binds device `device` to this process and makes a cuBLAS or rocBLAS
 * handle on a stream of its own; a missing library is one line naming
 * it ("no rocBLAS: ..." is PB_EINPUT). */
int pb_gemm_open(int device, pb_gemm_dev_t **out, pb_err_t *err);

/* "NVIDIA H200, bus 0000:19:00.0" */
void pb_gemm_describe(const pb_gemm_dev_t *d, char *buf, size_t len);

/* Allocates the three operands (device memory), fills X and W with small
 * pseudo-random values (all-zero inputs draw less power and run faster
 * than real ones), runs `warmup` untimed multiplies, then `iters` timed
 * ones back to back on the stream with an event pair around each:
 * times_us[i] is the i-th multiply's time in microseconds.  Frees the
 * operands before returning. */
int pb_gemm_time(pb_gemm_dev_t *d, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                 uint64_t warmup, uint64_t iters, double *times_us, pb_err_t *err);

void pb_gemm_close(pb_gemm_dev_t *d);

#endif

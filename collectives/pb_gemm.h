/* pb_gemm.h - time one dense matrix multiply on this process's GPU.
 *
 * The compute-rate probe of `parbench gemm`: the model (a later issue)
 * divides a layer's FLOPs by what this measures.  One implementation per
 * build: pb_gemm_cublas.c (cuBLAS, opened with the device: pb_cublas.h) or pb_gemm_none.c
 * (every call says the build has no CUDA), so callers need no #ifdef.
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

/* Visible devices (CUDA_VISIBLE_DEVICES applies).  No device, a driver
 * too old or missing (cudaGetDeviceCount's 100 and 35), or a build
 * without CUDA: PB_EINPUT and one line saying which. */
int pb_gemm_device_count(int *count, pb_err_t *err);

/* Is t a type the probe multiplies (bf16, fp16, fp32)? */
int pb_gemm_dtype_ok(pb_dtype_t t);

/* Binds device `device` to this process and makes a cuBLAS handle on a
 * stream of its own. */
int pb_gemm_open(int device, pb_gemm_dev_t **out, pb_err_t *err);

/* "NVIDIA H200, bus 0000:19:00.0" */
void pb_gemm_describe(const pb_gemm_dev_t *d, char *buf, size_t len);

/* Allocates the three operands (cudaMalloc), fills X and W with small
 * pseudo-random values (all-zero inputs draw less power and run faster
 * than real ones), runs `warmup` untimed multiplies, then `iters` timed
 * ones back to back on the stream with a CUDA event pair around each:
 * times_us[i] is the i-th multiply's time in microseconds.  Frees the
 * operands before returning. */
int pb_gemm_time(pb_gemm_dev_t *d, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                 uint64_t warmup, uint64_t iters, double *times_us, pb_err_t *err);

void pb_gemm_close(pb_gemm_dev_t *d);

#endif

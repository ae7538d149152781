/* pb_gemm_none.c - the GEMM probe of a build without CUDA or HIP: every entry
 * says so, so `parbench gemm` fails with one clear line. */
#include "pb_gemm.h"

#define PB_GEMM_NO_CUDA                                                                            \
    "parbench gemm needs a build with CUDA (PARBENCH_CUDA=ON) or HIP (PARBENCH_HIP=ON)"

int pb_gemm_device_count(int *count, pb_err_t *err)
{
    *count = 0;
    return pb_err_set(err, PB_EINPUT, PB_GEMM_NO_CUDA);
}

int pb_gemm_dtype_ok(pb_dtype_t t)
{
    return t == PB_BF16 || t == PB_F16 || t == PB_F32;
}

int pb_gemm_open(int device, pb_gemm_dev_t **out, pb_err_t *err)
{
    (void)device;
    *out = NULL;
    return pb_err_set(err, PB_EINPUT, PB_GEMM_NO_CUDA);
}

void pb_gemm_describe(const pb_gemm_dev_t *d, char *buf, size_t len)
{
    (void)d;
    if (len > 0)
        buf[0] = '\0';
}

int pb_gemm_time(pb_gemm_dev_t *d, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                 uint64_t warmup, uint64_t iters, double *times_us, pb_err_t *err)
{
    (void)d, (void)t, (void)m, (void)n, (void)k, (void)warmup, (void)iters, (void)times_us;
    return pb_err_set(err, PB_EINPUT, PB_GEMM_NO_CUDA);
}

void pb_gemm_close(pb_gemm_dev_t *d)
{
    (void)d;
}

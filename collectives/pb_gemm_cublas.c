/* pb_gemm_cublas.c - the GEMM probe on cuBLAS (built with CUDA only;
 * cuBLAS itself is opened when a device is, pb_cublas.h says why).
 *
 * cublasGemmEx_64: 64-bit sizes, inputs and output of one type (bf16,
 * fp16 or fp32), CUBLAS_COMPUTE_32F (fp32 accumulation; for fp32 inputs
 * this is true fp32, not TF32), the library's default algorithm choice.
 * Every CUDA and cuBLAS return code is checked; the first failure is the
 * message (pb_err_set keeps the first), later ones are its consequences. */
#include "pb_gemm.h"

#include <cuda_runtime.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_busy_plan.h"
#include "pb_cublas.h"
#include "pb_cuda_kernels.h"
#include "pb_half.h"

struct pb_gemm_dev {
    int device;
    cudaStream_t stream;
    pb_cublas_t cublas; /* the library's entry points, opened with the device */
    cublasHandle_t handle;
    uint64_t busy_wave; /* the hold kernel's wave (pb_cuda_busy), asked once */
    char desc[160];
};

/* Host pattern copied over a device buffer piece by piece: 4 MiB keeps
 * the host side small whatever the operand size. */
#define PB_GEMM_FILL_BYTES ((size_t)4 << 20)

static int cuda_ok(cudaError_t e, const char *what, pb_err_t *err)
{
    if (e == cudaSuccess)
        return PB_OK;
    return pb_err_set(err, PB_ERUNTIME, "CUDA: %s failed: %s (%s, %d)", what,
                      cudaGetErrorString(e), cudaGetErrorName(e), (int)e);
}

static int cublas_ok(const pb_cublas_t *c, cublasStatus_t s, const char *what, pb_err_t *err)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return PB_OK;
    return pb_err_set(err, PB_ERUNTIME, "cuBLAS: %s failed: %s (%s, %d)", what,
                      c->status_string(s), c->status_name(s), (int)s);
}

int pb_gemm_device_count(int *count, pb_err_t *err)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    /* 100: no device; 35: no (or too old a) driver, as on a machine with
     * the toolkit but no GPU.  Both are "this machine has no GPU for us",
     * an input problem of where parbench gemm was started, not a failure */
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        *count = 0;
        return pb_err_set(err, PB_EINPUT, "no CUDA device: cudaGetDeviceCount returned %d",
                          (int)e);
    }
    if (cuda_ok(e, "cudaGetDeviceCount", err) != PB_OK)
        return err->code;
    if (*count <= 0)
        return pb_err_set(err, PB_EINPUT, "no CUDA device: cudaGetDeviceCount found none");
    return PB_OK;
}

int pb_gemm_dtype_ok(pb_dtype_t t)
{
    return t == PB_BF16 || t == PB_F16 || t == PB_F32;
}

static cudaDataType_t data_type(pb_dtype_t t)
{
    return t == PB_BF16 ? CUDA_R_16BF : t == PB_F16 ? CUDA_R_16F : CUDA_R_32F;
}

int pb_gemm_open(int device, pb_gemm_dev_t **out, pb_err_t *err)
{
    *out = NULL;
    pb_gemm_dev_t *d = calloc(1, sizeof *d);
    if (d == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    d->device = device;
    char what[64];
    snprintf(what, sizeof what, "cudaSetDevice(%d)", device);
    if (cuda_ok(cudaSetDevice(device), what, err) != PB_OK)
        goto fail;
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    if (cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties", err) ||
        cuda_ok(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device), "cudaDeviceGetPCIBusId",
                err))
        goto fail;
    snprintf(d->desc, sizeof d->desc, "%.100s, bus %.31s", prop.name, bus);
    /* a stream of our own: nothing else is ordered with the timed work */
    if (cuda_ok(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking),
                "cudaStreamCreateWithFlags", err) != PB_OK)
        goto fail;
    if (pb_cublas_open(&d->cublas, err) != PB_OK)
        goto fail;
    if (cublas_ok(&d->cublas, d->cublas.create(&d->handle), "cublasCreate", err) != PB_OK) {
        d->handle = NULL;
        goto fail;
    }
    if (cublas_ok(&d->cublas, d->cublas.set_stream(d->handle, d->stream), "cublasSetStream",
                  err) != PB_OK)
        goto fail;
    *out = d;
    return PB_OK;
fail:
    pb_gemm_close(d);
    return err->code;
}

void pb_gemm_describe(const pb_gemm_dev_t *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s", d ? d->desc : "");
}

void pb_gemm_close(pb_gemm_dev_t *d)
{
    if (d == NULL)
        return;
    /* teardown after a failure: its codes would only repeat that failure */
    if (d->handle)
        (void)d->cublas.destroy(d->handle);
    if (d->stream)
        (void)cudaStreamDestroy(d->stream);
    pb_cublas_close(&d->cublas);
    free(d);
}

/* elements * size in bytes, or 0 when that overflows */
static size_t bytes_of(uint64_t a, uint64_t b, size_t esz)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    uint64_t e = a * b;
    return e > SIZE_MAX / esz ? 0 : (size_t)(e * esz);
}

static int dev_alloc(void **p, size_t bytes, const char *what, pb_err_t *err)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it for the caller */
        *p = NULL;
        return pb_err_set(err, PB_EINPUT,
                          "cudaMalloc of %zu bytes for %s: out of device memory (shape too "
                          "large for this GPU?)",
                          bytes, what);
    }
    if (cuda_ok(e, "cudaMalloc", err) != PB_OK) {
        *p = NULL;
        return err->code;
    }
    return PB_OK;
}

/* Uniform values in [-1, 1) from a 64-bit LCG (Knuth's MMIX constants):
 * deterministic, and varied enough that the multiply draws real power. */
static void fill_pattern(unsigned char *buf, size_t bytes, pb_dtype_t t)
{
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    size_t esz = pb_dtype_size(t);
    for (size_t i = 0; i + esz <= bytes; i += esz) {
        x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        float v = (float)((double)(x >> 40) / (double)(UINT64_C(1) << 24) * 2.0 - 1.0);
        if (t == PB_F32) {
            memcpy(buf + i, &v, sizeof v);
        } else {
            uint16_t h = t == PB_BF16 ? pb_float_to_bf16(v) : pb_float_to_half(v);
            memcpy(buf + i, &h, sizeof h);
        }
    }
}

static int dev_fill(void *dst, size_t bytes, const unsigned char *pat, size_t patbytes,
                    pb_err_t *err)
{
    for (size_t off = 0; off < bytes; off += patbytes) {
        size_t n = bytes - off < patbytes ? bytes - off : patbytes;
        if (cuda_ok(cudaMemcpy((unsigned char *)dst + off, pat, n, cudaMemcpyHostToDevice),
                    "cudaMemcpy (operand fill)", err) != PB_OK)
            return err->code;
    }
    return PB_OK;
}

/* Y[M, N] = X[M, K] . W[K, N] in row-major terms is, column-major as
 * cuBLAS sees it, Y^T (N x M) = W^T . X^T.  W is stored as torch.nn.Linear
 * keeps its weight, [N, K] row-major = K x N column-major, hence op T on
 * it with lda = K; X^T is K x M column-major, ldb = K; Y^T has ldc = N. */
static int gemm_once(pb_gemm_dev_t *d, cudaDataType_t ty, uint64_t m, uint64_t n, uint64_t k,
                     const void *x, const void *w, void *y, pb_err_t *err)
{
    const float alpha = 1.0f, beta = 0.0f; /* COMPUTE_32F takes float scalars */
    return cublas_ok(&d->cublas,
                     d->cublas.gemm_ex_64(d->handle, CUBLAS_OP_T, CUBLAS_OP_N, (int64_t)n,
                                          (int64_t)m, (int64_t)k, &alpha, w, ty, (int64_t)k, x,
                                          ty, (int64_t)k, &beta, y, ty, (int64_t)n,
                                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx_64", err);
}

/* The type, the shape and the count a timing can take; the operands'
 * sizes in bytes in bx (M x K), bw (K x N), by (M x N). */
static int gemm_args(pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k, uint64_t iters,
                     size_t *bx, size_t *bw, size_t *by, pb_err_t *err)
{
    if (!pb_gemm_dtype_ok(t))
        return pb_err_set(err, PB_EINPUT, "gemm multiplies bf16, fp16 or fp32, not %s",
                          pb_dtype_name(t));
    if (m == 0 || n == 0 || k == 0 || m > INT64_MAX || n > INT64_MAX || k > INT64_MAX)
        return pb_err_set(err, PB_EINPUT, "gemm shape out of range");
    if (iters == 0 || iters > (uint64_t)INT32_MAX)
        return pb_err_set(err, PB_EINPUT, "gemm needs 1 to 2^31-1 timed iterations");
    const size_t esz = pb_dtype_size(t);
    *bx = bytes_of(m, k, esz);
    *bw = bytes_of(k, n, esz);
    *by = bytes_of(m, n, esz);
    if (*bx == 0 || *bw == 0 || *by == 0)
        return pb_err_set(err, PB_EINPUT, "gemm operands of M=%" PRIu64 " N=%" PRIu64
                                          " K=%" PRIu64 " do not fit this machine's size_t",
                          m, n, k);
    return PB_OK;
}

/* What one timing holds on the device: the operands and the events
 * between the timed multiplies.  Each step below fills its part; one
 * release frees whatever was made, whichever step failed. */
typedef struct gemm_run {
    void *x, *w, *y;
    cudaEvent_t *ev;
    size_t nev;
} gemm_run_t;

/* X (M x K), W (K x N) filled with the pattern, Y (M x N) zeroed, all on
 * the device once this returns. */
static int operands_make(pb_gemm_dev_t *d, pb_dtype_t t, size_t bx, size_t bw, size_t by,
                         gemm_run_t *r, pb_err_t *err)
{
    if (cuda_ok(cudaSetDevice(d->device), "cudaSetDevice", err) != PB_OK ||
        dev_alloc(&r->x, bx, "X", err) != PB_OK || dev_alloc(&r->w, bw, "W", err) != PB_OK ||
        dev_alloc(&r->y, by, "Y", err) != PB_OK)
        return err->code;
    size_t patbytes = bx > bw ? bx : bw;
    if (patbytes > PB_GEMM_FILL_BYTES)
        patbytes = PB_GEMM_FILL_BYTES;
    unsigned char *pat = malloc(patbytes);
    if (pat == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    fill_pattern(pat, patbytes, t);
    /* the fills go through the legacy default stream, which does not
     * order with our non-blocking one: wait for them before multiplying */
    if (dev_fill(r->x, bx, pat, patbytes, err) == PB_OK &&
        dev_fill(r->w, bw, pat, patbytes, err) == PB_OK &&
        cuda_ok(cudaMemset(r->y, 0, by), "cudaMemset", err) == PB_OK)
        cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the fills)", err);
    free(pat);
    return err->code;
}

/* iters + 1 events: the multiplies run back to back on the stream, so
 * event i is the end of multiply i-1 and the start of multiply i, and
 * no host round trip sits inside any timed interval */
static int events_make(gemm_run_t *r, uint64_t iters, pb_err_t *err)
{
    r->ev = calloc((size_t)iters + 1, sizeof *r->ev);
    if (r->ev == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    for (; r->nev < (size_t)iters + 1; r->nev++)
        if (cuda_ok(cudaEventCreateWithFlags(&r->ev[r->nev], cudaEventDefault),
                    "cudaEventCreate", err) != PB_OK)
            return err->code;
    return PB_OK;
}

/* The timed multiplies, queued behind a hold kernel, and each one's time
 * into times_us[0..iters). */
static int timed_run(pb_gemm_dev_t *d, cudaDataType_t ty, uint64_t m, uint64_t n, uint64_t k,
                     uint64_t iters, const gemm_run_t *r, double *times_us, pb_err_t *err)
{
    cudaEvent_t *ev = r->ev;
    /* the GPU spins while the host queues everything below, so no
     * timed interval holds a launch gap (pb_busy_hold_s) */
    if (cuda_ok((cudaError_t)pb_cuda_busy(pb_busy_hold_s(iters), d->stream, &d->busy_wave),
                "the hold kernel ahead of the timed multiplies", err) != PB_OK ||
        cuda_ok(cudaEventRecord(ev[0], d->stream), "cudaEventRecord", err) != PB_OK)
        return err->code;
    for (uint64_t i = 0; i < iters; i++)
        if (gemm_once(d, ty, m, n, k, r->x, r->w, r->y, err) != PB_OK ||
            cuda_ok(cudaEventRecord(ev[i + 1], d->stream), "cudaEventRecord", err) != PB_OK)
            return err->code;
    if (cuda_ok(cudaEventSynchronize(ev[iters]), "cudaEventSynchronize", err) != PB_OK ||
        cuda_ok(cudaGetLastError(), "a GEMM kernel", err) != PB_OK)
        return err->code;
    for (uint64_t i = 0; i < iters; i++) {
        float ms = 0.0f;
        if (cuda_ok(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), "cudaEventElapsedTime",
                    err) != PB_OK)
            return err->code;
        times_us[i] = (double)ms * 1000.0;
    }
    return PB_OK;
}

/* The first failure stays the message; cleanup codes are checked too,
 * and surface only when everything before them went well. */
static void run_release(gemm_run_t *r, pb_err_t *err)
{
    for (size_t i = 0; i < r->nev; i++)
        cuda_ok(cudaEventDestroy(r->ev[i]), "cudaEventDestroy", err);
    free(r->ev);
    if (r->y)
        cuda_ok(cudaFree(r->y), "cudaFree", err);
    if (r->w)
        cuda_ok(cudaFree(r->w), "cudaFree", err);
    if (r->x)
        cuda_ok(cudaFree(r->x), "cudaFree", err);
}

int pb_gemm_time(pb_gemm_dev_t *d, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                 uint64_t warmup, uint64_t iters, double *times_us, pb_err_t *err)
{
    size_t bx = 0, bw = 0, by = 0;
    if (gemm_args(t, m, n, k, iters, &bx, &bw, &by, err) != PB_OK)
        return err->code;
    /* a fresh error value: the status after the steps is this call's own */
    pb_err_clear(err);
    const cudaDataType_t ty = data_type(t);
    gemm_run_t run = {NULL, NULL, NULL, NULL, 0};
    int ok = operands_make(d, t, bx, bw, by, &run, err) == PB_OK;
    /* warm-up: cuBLAS picks and loads its kernel, clocks ramp up */
    for (uint64_t i = 0; ok && i < warmup; i++)
        ok = gemm_once(d, ty, m, n, k, run.x, run.w, run.y, err) == PB_OK;
    if (ok && events_make(&run, iters, err) == PB_OK)
        timed_run(d, ty, m, n, k, iters, &run, times_us, err);
    int rc = err->code;
    run_release(&run, err);
    return rc != PB_OK ? rc : err->code;
}

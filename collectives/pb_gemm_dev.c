/* pb_gemm_dev.c - the GEMM probe of a GPU build, for both vendors: which
 * runtime finds a device (CUDA's first, then HIP's), the operands and
 * their fill, the timing loop, the description.  Every runtime call goes
 * through the GPU runtime table (pb_gpurt.h); the multiply itself is the
 * BLAS table's (pb_gemm_blas.h: cuBLAS or rocBLAS).
 *
 * Every runtime and BLAS return code is checked; the first failure is
 * the message (pb_err_set keeps the first), later ones are its
 * consequences. */
#include "pb_gemm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_busy_plan.h"
#include "pb_gemm_blas.h"
#include "pb_gpurt.h"
#include "pb_half.h"

struct pb_gemm_dev {
    pb_gpurt_t rt;              /* the runtime that found the device */
    const pb_gemm_blas_t *blas; /* the library that multiplies on it */
    void *blas_state;
    int device;
    void *stream;
    uint64_t busy_wave; /* the hold kernel's wave, asked once */
    int hold;           /* 1: the hold kernel runs ahead of the timed multiplies */
    char desc[224];
};

/* Host pattern copied over a device buffer piece by piece: 4 MiB keeps
 * the host side small whatever the operand size. */
#define PB_GEMM_FILL_BYTES ((size_t)4 << 20)

/* "out of memory" from an allocation: cudaErrorMemoryAllocation and
 * hipErrorOutOfMemory are both 2 (cuda_runtime_api's and HIP's
 * hip_runtime_api.h enums) */
#define PB_GEMM_RT_OOM 2

static int rt_ok(const pb_gpurt_t *rt, int rc, const char *what, pb_err_t *err)
{
    if (rc == 0)
        return PB_OK;
    return pb_err_set(err, PB_ERUNTIME, "%s: %s failed: %s (%d)", rt->api, what,
                      rt->err_string(rt, rc), rc);
}

int pb_gemm_dtype_ok(pb_dtype_t t)
{
    return t == PB_BF16 || t == PB_F16 || t == PB_F32;
}

#ifdef PB_GEMM_CUBLAS
/* CUDA's devices: *n > 0 with rt open; or *n = 0, rt closed and `none`
 * saying why.  100 (no device) and 35 (no or too old a driver, as on a
 * machine with the toolkit but no GPU) are "this machine has no GPU for
 * us", an input problem of where gemm was started; other codes fail. */
static int cuda_devices(pb_gpurt_t *rt, int *n, char *none, size_t len, pb_err_t *err)
{
    char why[256] = "";
    if (pb_gpurt_cuda_open(rt, why, sizeof why) != 0)
        return pb_err_set(err, PB_ERUNTIME, "CUDA: %s", why);
    int rc = rt->device_count(rt, n);
    if (rc == 100 || rc == 35)
        snprintf(none, len, "no CUDA device: cudaGetDeviceCount returned %d", rc);
    else if (rc != 0) {
        rt_ok(rt, rc, "cudaGetDeviceCount", err);
        pb_gpurt_close(rt);
        return err->code;
    } else if (*n <= 0)
        snprintf(none, len, "no CUDA device: cudaGetDeviceCount found none");
    if (rc != 0 || *n <= 0) {
        *n = 0;
        pb_gpurt_close(rt);
    }
    return PB_OK;
}
#endif

#ifdef PB_GEMM_ROCBLAS
/* HIP's devices, as cuda_devices: none listed by the kernel ("no AMD
 * GPU: ..."), no runtime ("no HIP runtime: ..."), or none it can use. */
static void hip_devices(pb_gpurt_t *rt, int *n, char *none, size_t len)
{
    *n = 0;
    if (pb_gpurt_hip_open(rt, none, len) != 0)
        return;
    int rc = rt->device_count(rt, n);
    if (rc != 0)
        snprintf(none, len, "no AMD GPU: hipGetDeviceCount returned %d (%s)", rc,
                 rt->err_string(rt, rc));
    else if (*n <= 0)
        snprintf(none, len, "no AMD GPU: hipGetDeviceCount found none");
    if (rc != 0 || *n <= 0) {
        *n = 0;
        pb_gpurt_close(rt);
    }
}
#endif

/* The runtime whose devices gemm uses, open in *rt, and its library: a
 * visible CUDA device first (a build may have both), else an AMD one.
 * None: PB_EINPUT and one line naming what each runtime said. */
static int pick(pb_gpurt_t *rt, const pb_gemm_blas_t **blas, int *n, pb_err_t *err)
{
    char cuda_none[160] = "", hip_none[320] = "";
    memset(rt, 0, sizeof *rt);
    *n = 0;
#ifdef PB_GEMM_CUBLAS
    if (cuda_devices(rt, n, cuda_none, sizeof cuda_none, err) != PB_OK)
        return err->code;
    if (*n > 0) {
        *blas = &pb_gemm_cublas_ops;
        return PB_OK;
    }
#endif
#ifdef PB_GEMM_ROCBLAS
    hip_devices(rt, n, hip_none, sizeof hip_none);
    if (*n > 0) {
        *blas = &pb_gemm_rocblas_ops;
        return PB_OK;
    }
#endif
    /* ", and " rather than "; ": CTest splits a regular expression at ';' */
    return pb_err_set(err, PB_EINPUT, "%s%s%s", cuda_none,
                      cuda_none[0] && hip_none[0] ? ", and " : "", hip_none);
}

int pb_gemm_device_count(int *count, pb_err_t *err)
{
    pb_gpurt_t rt;
    const pb_gemm_blas_t *blas = NULL;
    if (pick(&rt, &blas, count, err) != PB_OK)
        return err->code;
    pb_gpurt_close(&rt);
    return PB_OK;
}

/* the runtime's own steps of open: the device, its name, a stream */
static int device_up(pb_gemm_dev_t *d, pb_err_t *err)
{
    pb_gpurt_t *rt = &d->rt;
    char what[64];
    snprintf(what, sizeof what, "set device %d", d->device);
    pb_gpu_props_t p;
    if (rt_ok(rt, rt->set_device(rt, d->device), what, err) != PB_OK ||
        rt_ok(rt, rt->props(rt, d->device, &p), "device properties", err) != PB_OK)
        return err->code;
    snprintf(d->desc, sizeof d->desc, "%.100s, bus %.31s", p.name, p.bus_id[0] ? p.bus_id : "?");
    /* a stream of our own: nothing else is ordered with the timed work */
    if (rt_ok(rt, rt->stream_create(rt, &d->stream), "stream create", err) != PB_OK) {
        d->stream = NULL;
        return err->code;
    }
    return PB_OK;
}

/* The hold kernel (pb_busy_plan.h) on an AMD GPU runs only where this
 * build has a code object for the device (pb_hip_kernels.h: Debian 12's
 * hipcc stops at gfx940, an MI300X is gfx942); elsewhere the multiplies
 * are timed without it, which can add a launch gap to the first
 * intervals, and the description says so.  A short hold tells which;
 * CUDA builds always have the kernel. */
static int hold_probe(pb_gemm_dev_t *d, pb_err_t *err)
{
    const pb_gpurt_t *rt = &d->rt;
    d->hold = 1;
    if (rt->vendor != PB_GPU_AMD)
        return PB_OK;
    int rc = rt->busy(rt, 1e-5, d->stream, &d->busy_wave);
    if (rc == 0)
        return rt_ok(rt, rt->stream_sync(rt, d->stream), "stream synchronize (hold probe)", err);
    (void)rt->get_last_error(rt); /* a refused launch, not a device fault: clear it */
    d->hold = 0;
    size_t used = strlen(d->desc);
    snprintf(d->desc + used, sizeof d->desc - used, " (timed without the hold kernel: %.60s)",
             rt->err_string(rt, rc));
    return PB_OK;
}

int pb_gemm_open(int device, pb_gemm_dev_t **out, pb_err_t *err)
{
    *out = NULL;
    pb_gemm_dev_t *d = calloc(1, sizeof *d);
    if (d == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    d->device = device;
    int n = 0;
    if (pick(&d->rt, &d->blas, &n, err) != PB_OK) {
        free(d);
        return err->code;
    }
    if (device < 0 || device >= n) {
        pb_err_set(err, PB_EINPUT, "gemm: device %d of %d visible ones", device, n);
        pb_gemm_close(d);
        return err->code;
    }
    if (device_up(d, err) != PB_OK || hold_probe(d, err) != PB_OK ||
        d->blas->open(&d->blas_state, d->stream, err) != PB_OK) {
        pb_gemm_close(d);
        return err->code;
    }
    *out = d;
    return PB_OK;
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
    if (d->blas != NULL)
        d->blas->close(d->blas_state);
    if (d->stream)
        (void)d->rt.stream_destroy(&d->rt, d->stream);
    pb_gpurt_close(&d->rt);
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

static int dev_alloc(const pb_gpurt_t *rt, void **p, size_t bytes, const char *what,
                     pb_err_t *err)
{
    int rc = rt->malloc(rt, p, bytes);
    if (rc == PB_GEMM_RT_OOM) {
        (void)rt->get_last_error(rt); /* not sticky: clear it for the caller */
        *p = NULL;
        return pb_err_set(err, PB_EINPUT,
                          "%s: allocating %zu bytes for %s: out of device memory (shape too "
                          "large for this GPU?)",
                          rt->api, bytes, what);
    }
    if (rt_ok(rt, rc, "device malloc", err) != PB_OK) {
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

static int dev_fill(const pb_gpurt_t *rt, void *dst, size_t bytes, const unsigned char *pat,
                    size_t patbytes, pb_err_t *err)
{
    for (size_t off = 0; off < bytes; off += patbytes) {
        size_t n = bytes - off < patbytes ? bytes - off : patbytes;
        if (rt_ok(rt, rt->memcpy(rt, (unsigned char *)dst + off, pat, n), "memcpy (operand fill)",
                  err) != PB_OK)
            return err->code;
    }
    return PB_OK;
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
    void **ev;
    size_t nev;
} gemm_run_t;

/* X (M x K), W (K x N) filled with the pattern, Y (M x N) zeroed, all on
 * the device once this returns. */
static int operands_make(pb_gemm_dev_t *d, pb_dtype_t t, size_t bx, size_t bw, size_t by,
                         gemm_run_t *r, pb_err_t *err)
{
    const pb_gpurt_t *rt = &d->rt;
    if (rt_ok(rt, rt->set_device(rt, d->device), "set device", err) != PB_OK ||
        dev_alloc(rt, &r->x, bx, "X", err) != PB_OK ||
        dev_alloc(rt, &r->w, bw, "W", err) != PB_OK || dev_alloc(rt, &r->y, by, "Y", err) != PB_OK)
        return err->code;
    size_t patbytes = bx > bw ? bx : bw;
    if (patbytes > PB_GEMM_FILL_BYTES)
        patbytes = PB_GEMM_FILL_BYTES;
    unsigned char *pat = malloc(patbytes);
    if (pat == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    fill_pattern(pat, patbytes, t);
    /* the copies go through the legacy default stream, which does not
     * order with our non-blocking one: wait for all before multiplying */
    if (dev_fill(rt, r->x, bx, pat, patbytes, err) == PB_OK &&
        dev_fill(rt, r->w, bw, pat, patbytes, err) == PB_OK &&
        rt_ok(rt, rt->memset_async(rt, r->y, 0, by, d->stream), "memset", err) == PB_OK)
        rt_ok(rt, rt->device_sync(rt), "device synchronize (after the fills)", err);
    free(pat);
    return err->code;
}

/* iters + 1 events: the multiplies run back to back on the stream, so
 * event i is the end of multiply i-1 and the start of multiply i, and
 * no host round trip sits inside any timed interval */
static int events_make(const pb_gpurt_t *rt, gemm_run_t *r, uint64_t iters, pb_err_t *err)
{
    r->ev = calloc((size_t)iters + 1, sizeof *r->ev);
    if (r->ev == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    for (; r->nev < (size_t)iters + 1; r->nev++)
        if (rt_ok(rt, rt->event_create(rt, &r->ev[r->nev]), "event create", err) != PB_OK)
            return err->code;
    return PB_OK;
}

/* The timed multiplies, queued behind a hold kernel, and each one's time
 * into times_us[0..iters). */
static int timed_run(pb_gemm_dev_t *d, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                     uint64_t iters, const gemm_run_t *r, double *times_us, pb_err_t *err)
{
    const pb_gpurt_t *rt = &d->rt;
    void **ev = r->ev;
    /* the GPU spins while the host queues everything below, so no
     * timed interval holds a launch gap (pb_busy_hold_s) */
    if ((d->hold && rt_ok(rt, rt->busy(rt, pb_busy_hold_s(iters), d->stream, &d->busy_wave),
                          "the hold kernel ahead of the timed multiplies", err) != PB_OK) ||
        rt_ok(rt, rt->event_record(rt, ev[0], d->stream), "event record", err) != PB_OK)
        return err->code;
    for (uint64_t i = 0; i < iters; i++)
        if (d->blas->gemm(d->blas_state, t, m, n, k, r->x, r->w, r->y, err) != PB_OK ||
            rt_ok(rt, rt->event_record(rt, ev[i + 1], d->stream), "event record", err) != PB_OK)
            return err->code;
    if (rt_ok(rt, rt->event_sync(rt, ev[iters]), "event synchronize", err) != PB_OK ||
        rt_ok(rt, rt->get_last_error(rt), "a GEMM kernel", err) != PB_OK)
        return err->code;
    for (uint64_t i = 0; i < iters; i++) {
        float ms = 0.0f;
        if (rt_ok(rt, rt->event_elapsed_ms(rt, &ms, ev[i], ev[i + 1]), "event elapsed time",
                  err) != PB_OK)
            return err->code;
        times_us[i] = (double)ms * 1000.0;
    }
    return PB_OK;
}

/* The first failure stays the message; cleanup codes are checked too,
 * and surface only when everything before them went well. */
static void run_release(const pb_gpurt_t *rt, gemm_run_t *r, pb_err_t *err)
{
    for (size_t i = 0; i < r->nev; i++)
        rt_ok(rt, rt->event_destroy(rt, r->ev[i]), "event destroy", err);
    free(r->ev);
    if (r->y)
        rt_ok(rt, rt->free(rt, r->y), "device free", err);
    if (r->w)
        rt_ok(rt, rt->free(rt, r->w), "device free", err);
    if (r->x)
        rt_ok(rt, rt->free(rt, r->x), "device free", err);
}

int pb_gemm_time(pb_gemm_dev_t *d, pb_dtype_t t, uint64_t m, uint64_t n, uint64_t k,
                 uint64_t warmup, uint64_t iters, double *times_us, pb_err_t *err)
{
    size_t bx = 0, bw = 0, by = 0;
    if (gemm_args(t, m, n, k, iters, &bx, &bw, &by, err) != PB_OK)
        return err->code;
    /* a fresh error value: the status after the steps is this call's own */
    pb_err_clear(err);
    gemm_run_t run = {NULL, NULL, NULL, NULL, 0};
    int ok = operands_make(d, t, bx, bw, by, &run, err) == PB_OK;
    /* warm-up: the library picks and loads its kernel, clocks ramp up */
    for (uint64_t i = 0; ok && i < warmup; i++)
        ok = d->blas->gemm(d->blas_state, t, m, n, k, run.x, run.w, run.y, err) == PB_OK;
    if (ok && events_make(&d->rt, &run, iters, err) == PB_OK)
        timed_run(d, t, m, n, k, iters, &run, times_us, err);
    int rc = err->code;
    run_release(&d->rt, &run, err);
    return rc != PB_OK ? rc : err->code;
}

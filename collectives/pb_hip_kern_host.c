/* pb_hip_kern_host.c - the host fallback of pb_hip_kernels.h, for a
 * device no embedded code object matches (and for fp8, which HIP 5.2
 * has no device type for): fill and check run on the host with the
 * host checker (pb_check.h), in chunks copied in or out in the stream's
 * order; stall waits in a host function queued on the stream. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_hip_kern_priv.h"

/* A chunk's bytes: large enough that a copy's fixed cost vanishes,
 * small enough to stay out of the way of the ranks' own memory */
#define CHUNK_BYTES (UINT64_C(16) << 20)

/* The host buffer one chunk of `count` elements passes through, and in
 * *per how many elements a chunk holds; never malloc(0), whose NULL
 * would read as "out of memory" for an empty buffer. */
static void *chunk_buf(uint64_t count, pb_dtype_t t, uint64_t *per)
{
    *per = CHUNK_BYTES / pb_dtype_size(t);
    uint64_t n = count < *per ? count : *per;
    return malloc((size_t)(n > 0 ? n : 1) * pb_dtype_size(t));
}

int pb_hip_host_fill(const pb_hip_kern_t *k, void *buf, uint64_t count, pb_dtype_t t,
                     uint64_t base, uint64_t q, const pb_redparams_t *red, int rank,
                     void *stream)
{
    size_t es = pb_dtype_size(t);
    uint64_t per;
    void *tmp = chunk_buf(count, t, &per);
    if (tmp == NULL)
        return (int)hipErrorOutOfMemory;
    hipError_t rc = hipSuccess;
    for (uint64_t off = 0; off < count && rc == hipSuccess; off += per) {
        uint64_t n = count - off < per ? count - off : per;
        if (red != NULL)
            pb_fill_red_host(tmp, n, t, *red, rank, base + off);
        else
            pb_fill_host(tmp, n, t, base + off, q);
        rc = k->api.MemcpyAsync((char *)buf + off * es, tmp, (size_t)(n * es),
                                hipMemcpyHostToDevice, (hipStream_t)stream);
        /* the next chunk overwrites tmp: this copy must be done first */
        if (rc == hipSuccess)
            rc = k->api.StreamSynchronize((hipStream_t)stream);
    }
    free(tmp);
    return (int)rc;
}

/* The counter is the device's (the kernels' contract: adds to it), so
 * it is read, added to and written back, in the stream's order */
static hipError_t add_to_counter(const pb_hip_kern_t *k, unsigned long long *counter,
                                 uint64_t wrong, hipStream_t s)
{
    unsigned long long have = 0;
    hipError_t rc = k->api.MemcpyAsync(&have, counter, sizeof have, hipMemcpyDeviceToHost, s);
    if (rc == hipSuccess)
        rc = k->api.StreamSynchronize(s);
    have += wrong;
    if (rc == hipSuccess)
        rc = k->api.MemcpyAsync(counter, &have, sizeof have, hipMemcpyHostToDevice, s);
    if (rc == hipSuccess)
        rc = k->api.StreamSynchronize(s);
    return rc;
}

int pb_hip_host_check(const pb_hip_kern_t *k, const void *buf, uint64_t count, pb_dtype_t t,
                      const pb_expect_t *e, unsigned long long *counter, void *stream)
{
    size_t es = pb_dtype_size(t);
    uint64_t per, wrong = 0;
    hipStream_t s = (hipStream_t)stream;
    void *tmp = chunk_buf(count, t, &per);
    if (tmp == NULL)
        return (int)hipErrorOutOfMemory;
    hipError_t rc = hipSuccess;
    for (uint64_t off = 0; off < count && rc == hipSuccess; off += per) {
        uint64_t n = count - off < per ? count - off : per;
        rc = k->api.MemcpyAsync(tmp, (const char *)buf + off * es, (size_t)(n * es),
                                hipMemcpyDeviceToHost, s);
        if (rc == hipSuccess)
            rc = k->api.StreamSynchronize(s);
        if (rc == hipSuccess) {
            /* element j of the chunk is element off + j of the buffer:
             * both kinds of expectation index from e->base (pb_expect.h) */
            pb_expect_t at = *e;
            at.base = e->base + off;
            wrong += pb_check_host(tmp, n, t, &at);
        }
    }
    free(tmp);
    if (rc == hipSuccess)
        rc = add_to_counter(k, counter, wrong, s);
    return (int)rc;
}

/* ---- stall: a host function on the stream, which holds the stream as
 * the stall kernel does: hipLaunchHostFunc, or on HIP 5.2, whose library
 * lacks it, hipStreamAddCallback (pb_hip_kern_priv.h) ---- */

typedef struct stall {
    double seconds;
    const volatile int *release; /* mapped host memory, or NULL */
} stall_t;

static double now_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0; /* CLOCK_MONOTONIC cannot fail on Linux; 0 ends the wait */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits until the time has passed or the host sets *release, looking
 * every millisecond as the kernel does; owns and frees its argument */
static void stall_fn(void *arg)
{
    stall_t *st = arg;
    double end = now_s() + st->seconds;
    const struct timespec ms = {0, 1000000};
    while (now_s() < end && (st->release == NULL || *st->release == 0))
        nanosleep(&ms, NULL);
    free(st);
}

/* The same as a stream callback; after an error on the stream there is
 * nothing to hold up */
static void stall_cb(hipStream_t s, hipError_t status, void *arg)
{
    (void)s;
    if (status != hipSuccess) {
        free(arg);
        return;
    }
    stall_fn(arg);
}

int pb_hip_host_stall(const pb_hip_kern_t *k, double seconds, void *stream,
                      const volatile int *release)
{
    stall_t *st = malloc(sizeof *st);
    if (st == NULL)
        return (int)hipErrorOutOfMemory;
    st->seconds = seconds > 0.0 ? seconds : 0.0;
    st->release = release;
    hipError_t rc = k->api.LaunchHostFunc != NULL
                        ? k->api.LaunchHostFunc((hipStream_t)stream, stall_fn, st)
                        : k->api.StreamAddCallback((hipStream_t)stream, stall_cb, st, 0);
    if (rc != hipSuccess)
        free(st); /* not queued: never runs */
    return (int)rc;
}

/* The host memory side: page-aligned host buffers, the data checks on
 * the CPU, and the compute stand-in as a spinning core.
 *
 * Any communication side that moves host memory uses it (MPI today). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pb_backend.h"

/* 20 us: about one eager message's latency on shared memory, so progress
 * never waits long on the stand-in, and a poll (a few hundred ns) costs
 * ~1 % of the spin. */
#define POLL_S 20e-6

static int host_init(pb_backend_t *be, pb_err_t *err)
{
    (void)be;
    (void)err;
    return PB_OK;
}

static void host_finalize(pb_backend_t *be) { (void)be; }

static int host_alloc(pb_backend_t *be, uint64_t bytes, void **ptr, pb_err_t *err)
{
    (void)be;
    /* 4 KiB: page aligned, like device allocations; never a zero-size
     * request, which some allocators answer with NULL */
    size_t sz = (size_t)(bytes ? bytes : 1);
    if ((uint64_t)sz != (bytes ? bytes : 1) || posix_memalign(ptr, 4096, sz) != 0)
        return pb_err_set(err, PB_ERUNTIME, "cannot allocate %llu bytes of host memory",
                          (unsigned long long)bytes);
    return PB_OK;
}

static void host_free(pb_backend_t *be, void *ptr)
{
    (void)be;
    free(ptr);
}

static int host_copy(pb_backend_t *be, void *dst, const void *src, uint64_t bytes,
                     pb_err_t *err)
{
    (void)be;
    (void)err;
    memcpy(dst, src, (size_t)bytes);
    return PB_OK;
}

/* Linux's estimate of memory a new allocation can get without swapping
 * (MemAvailable: free plus reclaimable cache); elsewhere free pages. */
static int host_mem_available(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                              size_t len)
{
    (void)be;
    *per_node = 1;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[128];
        unsigned long long kb = 0;
        int found = 0;
        while (!found && fgets(line, sizeof line, f))
            found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
        fclose(f);
        if (found) {
            *bytes = (uint64_t)kb * 1024u;
            snprintf(what, len, "host memory (MemAvailable)");
            return 1;
        }
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    *bytes = (uint64_t)pages * (uint64_t)page;
    snprintf(what, len, "host memory (free pages)");
    return 1;
}

static void host_device_info(pb_backend_t *be, char *buf, size_t len)
{
    (void)be;
    if (len)
        buf[0] = '\0';
}

static int host_fill(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                     uint64_t q, pb_err_t *err)
{
    (void)g;
    (void)err;
    pb_fill_host(buf, count, t, base, q);
    return PB_OK;
}

static int host_fill_red(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t,
                         pb_redparams_t p, int rank, uint64_t first_global, pb_err_t *err)
{
    (void)g;
    (void)err;
    pb_fill_red_host(buf, count, t, p, rank, first_global);
    return PB_OK;
}

static int host_check(pb_group_t *g, const void *buf, uint64_t count, pb_dtype_t t,
                      const pb_expect_t *e, uint64_t *wrong, pb_err_t *err)
{
    (void)g;
    (void)err;
    *wrong = pb_check_host(buf, count, t, e);
    return PB_OK;
}

static int host_poison(pb_group_t *g, void *buf, uint64_t bytes, pb_err_t *err)
{
    (void)g;
    (void)err;
    memset(buf, 0xff, (size_t)bytes);
    return PB_OK;
}

static int host_poke(pb_group_t *g, void *buf, uint64_t index, pb_dtype_t t, uint64_t value,
                     pb_err_t *err)
{
    (void)g;
    (void)err;
    pb_store_int(buf, index, t, value);
    return PB_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The core spins on the clock and, every POLL_S, lets the communication
 * side progress: Open MPI has no progress thread for host transports, so
 * a rank that "computes" by spinning would otherwise find all its
 * gradient all-reduces untouched when it finally waits, and no overlap
 * would ever be measured - a DDP comm hook's progress engine does the
 * same.  Polls first, so busy(g, 0) is one progress poll. */
static int host_busy(pb_group_t *g, double seconds, pb_err_t *err)
{
    if (!(seconds >= 0.0) || !isfinite(seconds)) /* NaN would spin forever */
        return pb_err_set(err, PB_ERUNTIME, "busy for %g seconds", seconds);
    pb_backend_t *be = g->be;
    double start = now_s(), next_poll = start, t = start;
    do {
        if (t >= next_poll) {
            if (be->comm->progress(be, err) != PB_OK)
                return err->code;
            next_poll = t + POLL_S;
        }
        t = now_s();
    } while (t - start < seconds);
    return PB_OK;
}

const pb_mem_ops_t pb_host_mem_ops = {
    .name = "host",
    .caps = PB_CAP_BUSY,
    .init = host_init,
    .finalize = host_finalize,
    .alloc = host_alloc,
    .free = host_free,
    .copy = host_copy,
    .mem_available = host_mem_available,
    .device_info = host_device_info,
    .fill = host_fill,
    .fill_red = host_fill_red,
    .check = host_check,
    .poison = host_poison,
    .poke = host_poke,
    .busy = host_busy,
};

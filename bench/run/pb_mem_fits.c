/* The memory rule of a rank's buffers (pb_mem_fits.h). */
#include "pb_mem_fits.h"

#include <stdio.h>

static void human(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

int pb_mem_fits(uint64_t buf_bytes, uint64_t extra, int local, uint64_t avail, const char *what,
                pb_err_t *err)
{
    long double need = ((long double)buf_bytes * 2.0L + (long double)extra) * (long double)local;
    if (need <= (long double)avail)
        return PB_OK;
    char b1[32], b2[32], b3[32];
    human(buf_bytes, b1, sizeof b1);
    human(avail, b3, sizeof b3);
    if (need >= 18446744073709551615.0L)
        snprintf(b2, sizeof b2, "over 16 EiB");
    else
        human((uint64_t)need, b2, sizeof b2);
    if (local > 1)
        return pb_err_set(err, PB_EINPUT,
                          "not enough memory: 2 buffers of %s per rank x %d ranks on this node "
                          "need %s of %s; %s available",
                          b1, local, b2, what, b3);
    return pb_err_set(err, PB_EINPUT,
                      "not enough memory: 2 buffers of %s need %s of %s; %s available", b1, b2,
                      what, b3);
}

#include "pb_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pb_progress_wanted(int rank, int quiet)
{
    if (rank != 0 || quiet)
        return 0;
    const char *e = getenv("PARBENCH_PROGRESS");
    if (e != NULL && *e != '\0')
        return strcmp(e, "0") != 0;
    return isatty(STDERR_FILENO);
}

void pb_progress_start(pb_progress_t *p, int on, uint64_t total)
{
    memset(p, 0, sizeof *p);
    p->on = on && total > 0;
    p->total = total;
    p->t0 = p->last = now_s();
}

void pb_progress_step(pb_progress_t *p, const char *what)
{
    if (!p->on)
        return;
    double t = now_s();
    /* at most ~5 redraws a second: a terminal is slow, small ops are fast */
    if (p->shown && t - p->last < 0.2 && p->done + 1 < p->total) {
        p->done++;
        return;
    }
    p->last = t;
    char left[32] = "--:--";
    if (p->done > 0) {
        double rest = (t - p->t0) / (double)p->done * (double)(p->total - p->done);
        long s = (long)(rest + 0.5);
        snprintf(left, sizeof left, "%ld:%02ld", s / 60, s % 60);
    }
    /* \r and clear-to-end: the line is redrawn in place */
    fprintf(stderr, "\r\033[K[%llu/%llu] %.60s  ~%s left", (unsigned long long)p->done + 1,
            (unsigned long long)p->total, what, left);
    fflush(stderr);
    p->shown = 1;
    p->done++;
}

void pb_progress_clear(pb_progress_t *p)
{
    if (p->on && p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = 0;
}

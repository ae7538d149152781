#include "pb_watchdog.h"

#include "pb_wd_signals.h"
#include "pb_wd_tree.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { LISTED = 16 };
/* the thread wakes this often when nothing happens: the resolution of
 * the stuck clock and of a stop */
#define PB_WD_PERIOD_MS 100
/* rank 0 waits this long for answers; other ranks this long for rank 0 */
#define PB_WD_SURVEY_S 5.0
#define PB_WD_GRACE_S 15.0

struct pb_watchdog {
    pb_wd_tree_t *tree; /* NULL: no channel (one rank, or set-up failed) */
    int rank, size;
    pb_wd_signals_t *sigs; /* the process's SIGINT and SIGTERM (NULL: none) */
    double timeout;     /* under mu */
    pthread_t thread;
    pthread_mutex_t mu;
    /* under mu */
    char doing[PB_WD_DOING];
    char base[PB_WD_DOING]; /* the last step begun by pb_watch_begin */
    uint64_t step;
    int armed;
    /* lock-free: the main thread's hot path only increments ticks */
    atomic_uint_fast64_t ticks;
    atomic_int stop;
    /* the thread's own */
    uint_fast64_t seen;
    double last;     /* when ticks last changed */
    double fired_at; /* 0: not fired */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void signal_set(sigset_t *s)
{
    sigemptyset(s);
    sigaddset(s, SIGINT);
    sigaddset(s, SIGTERM);
}

void pb_watchdog_block_signals(void)
{
    sigset_t s;
    signal_set(&s);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
}

void pb_watch_begin(pb_watchdog_t *wd, const char *fmt, ...)
{
    if (wd == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&wd->mu);
    vsnprintf(wd->doing, sizeof wd->doing, fmt, ap);
    memcpy(wd->base, wd->doing, sizeof wd->base);
    wd->step++;
    wd->armed = 1;
    pthread_mutex_unlock(&wd->mu);
    va_end(ap);
    atomic_fetch_add_explicit(&wd->ticks, 1, memory_order_relaxed);
}

void pb_watch_begin_after(pb_watchdog_t *wd, const char *what)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->mu);
    /* after the last real step, never "x after y after ..." */
    snprintf(wd->doing, sizeof wd->doing, "%.40s after %.*s", what, PB_WD_DOING - 48,
             wd->base[0] ? wd->base : "start");
    wd->step++;
    wd->armed = 1;
    pthread_mutex_unlock(&wd->mu);
    atomic_fetch_add_explicit(&wd->ticks, 1, memory_order_relaxed);
}

void pb_watch_tick(pb_watchdog_t *wd)
{
    if (wd)
        atomic_fetch_add_explicit(&wd->ticks, 1, memory_order_relaxed);
}

void pb_watch_end(pb_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->mu);
    wd->armed = 0;
    pthread_mutex_unlock(&wd->mu);
    atomic_fetch_add_explicit(&wd->ticks, 1, memory_order_relaxed);
}

int pb_watchdog_signal(const pb_watchdog_t *wd)
{
    /* the process's record: a signal read by any rank's watchdog counts
     * for every rank of the process (pb_wd_signals.h) */
    return wd && wd->sigs ? pb_wd_signals_got(wd->sigs) : 0;
}

void pb_watchdog_hang_forever(void)
{
    for (;;)
        sleep(3600);
}


static void snapshot(pb_watchdog_t *wd, double idle, uint32_t type, pb_wd_frame_t *f)
{
    memset(f, 0, sizeof *f);
    f->type = type;
    pthread_mutex_lock(&wd->mu);
    f->step = wd->step;
    f->armed = wd->armed;
    memcpy(f->doing, wd->doing, sizeof f->doing);
    pthread_mutex_unlock(&wd->mu);
    f->origin = wd->rank;
    f->idle_s = idle;
}

static void list_ranks(char *buf, size_t len, const int *ranks, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && i < LISTED && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? ", " : "", ranks[i]);
    if (n > LISTED && used < len)
        snprintf(buf + used, len - used, " and %d more", n - LISTED);
}

/* Rank 0's verdict from every rank's state: the step the job is stuck in
 * is the latest one any armed rank is in; the ranks not in it have not
 * arrived, and those that never answered are named apart. */
static void print_survey(const pb_wd_frame_t *all, const char *got, int n, int *list)
{
    uint64_t k = 0;
    int waiting = 0, kr = 0;
    for (int r = 0; r < n; r++)
        if (got[r] && all[r].armed && all[r].step >= k) {
            if (all[r].step > k)
                waiting = 0;
            k = all[r].step;
            kr = r;
            waiting++;
        }
    int nmiss = 0, nsilent = 0;
    for (int r = 0; r < n; r++) {
        nsilent += !got[r];
        if (got[r] && !(all[r].armed && all[r].step == k))
            list[nmiss++] = r;
    }
    char ranks[256];
    list_ranks(ranks, sizeof ranks, list, nmiss);
    fprintf(stderr,
            "parbench: watchdog: %d of %d ranks wait in step #%llu (%s); not arrived: %s%s\n",
            waiting, n, (unsigned long long)k, all[kr].doing,
            nmiss == 0 ? "" : nmiss == 1 ? "rank " : "ranks ",
            nmiss     ? ranks
            : nsilent ? "none of those that answered"
                      : "none (all ranks are in it: a hang inside the step)");
    for (int i = 0; i < nmiss && i < LISTED; i++) {
        const pb_wd_frame_t *s = &all[list[i]];
        fprintf(stderr, "parbench: watchdog:   rank %d is %s step #%llu (%s), %.1f s %s\n",
                list[i], s->armed ? "in" : "past", (unsigned long long)s->step,
                s->doing[0] ? s->doing : "none yet", s->idle_s,
                s->armed ? "without progress" : "since it ended (not waiting on anyone)");
    }
    nsilent = 0;
    for (int r = 0; r < n; r++)
        if (!got[r])
            list[nsilent++] = r;
    if (nsilent) {
        list_ranks(ranks, sizeof ranks, list, nsilent);
        fprintf(stderr,
                "parbench: watchdog: no answer within %.0f s from rank%s %s (process stopped, dead, or its node unreachable)\n",
                PB_WD_SURVEY_S, nsilent > 1 ? "s" : "", ranks);
    }
}

/* Rank 0: asks every rank down the tree where it is, collects the
 * answers for PB_WD_SURVEY_S at most, prints the verdict. */
static void survey(pb_watchdog_t *wd, double idle)
{
    int n = wd->size;
    pb_wd_frame_t *all = calloc((size_t)n, sizeof *all);
    char *got = calloc((size_t)n, 1);
    int *list = calloc((size_t)n, sizeof *list);
    if (all == NULL || got == NULL || list == NULL) {
        fprintf(stderr, "parbench: watchdog: out of memory for the survey of %d ranks\n", n);
        goto out;
    }
    snapshot(wd, idle, PB_WD_STATE, &all[0]);
    got[0] = 1;
    pb_wd_frame_t q;
    memset(&q, 0, sizeof q);
    q.type = PB_WD_QUERY;
    pb_wd_tree_down(wd->tree, &q);
    int answered = 1;
    double until = now_s() + PB_WD_SURVEY_S;
    while (answered < n) {
        double left = until - now_s();
        pb_wd_frame_t f;
        int from_parent = 0;
        if (left <= 0.0 || pb_wd_tree_next(wd->tree, -1, (int)(left * 1000.0) + 1, &f,
                                           &from_parent) != 1)
            break;
        if (f.type == PB_WD_STATE && f.origin > 0 && f.origin < n && !got[f.origin]) {
            all[f.origin] = f;
            got[f.origin] = 1;
            answered++;
        }
    }
    print_survey(all, got, n, list);
out:
    fflush(stderr);
    free(all);
    free(got);
    free(list);
}

/* Ends the job: every rank below exits with the runtime code, then this
 * one.  No MPI from this thread (MPI runs at MPI_THREAD_FUNNELED): a
 * launcher that sees ranks exit before MPI_Finalize ends the rest. */
static _Noreturn void abort_job(pb_watchdog_t *wd)
{
    pb_wd_frame_t f;
    memset(&f, 0, sizeof f);
    f.type = PB_WD_ABORT;
    f.origin = wd->rank;
    pb_wd_tree_down(wd->tree, &f);
    fflush(stderr);
    _exit(PB_ERUNTIME);
}

/* The deadline passed in an armed step: say so; rank 0 surveys and ends
 * the job, others report upward and wait for that (answering queries). */
static void fire(pb_watchdog_t *wd, double idle)
{
    pb_wd_frame_t s;
    snapshot(wd, idle, PB_WD_REPORT, &s);
    fprintf(stderr, "parbench: watchdog: rank %d stuck for %.1f s in step #%llu: %s\n", wd->rank,
            idle, (unsigned long long)s.step, s.doing);
    fflush(stderr);
    if (wd->tree == NULL)
        abort_job(wd); /* alone: the others' watchdogs fire on their own */
    if (wd->rank == 0) {
        survey(wd, idle);
        abort_job(wd);
    }
    pb_wd_tree_up(wd->tree, &s);
    wd->fired_at = now_s();
}

/* One frame from the tree: route it, and act on what is for this rank. */
static void on_frame(pb_watchdog_t *wd, pb_wd_frame_t *f, int from_parent, double idle)
{
    if (!from_parent) {
        if (wd->rank != 0) {
            pb_wd_tree_up(wd->tree, f); /* REPORT or STATE of a descendant */
        } else if (f->type == PB_WD_REPORT) {
            /* a rank's watchdog fired: survey and end the job */
            survey(wd, idle);
            abort_job(wd);
        }
        return; /* a STATE outside a survey (a late answer) is dropped */
    }
    if (f->type == PB_WD_QUERY) {
        pb_wd_tree_down(wd->tree, f);
        pb_wd_frame_t s;
        snapshot(wd, idle, PB_WD_STATE, &s);
        pb_wd_tree_up(wd->tree, &s);
    } else if (f->type == PB_WD_ABORT) {
        pb_wd_tree_down(wd->tree, f);
        _exit(PB_ERUNTIME);
    }
}

/* Sleeps in poll() on the signals and the tree's sockets: nothing runs
 * and nothing is sent while the job is healthy, so the main thread's
 * timings carry no cost from the watchdog. */
static void *loop(void *arg)
{
    pb_watchdog_t *wd = arg;
    wd->seen = atomic_load(&wd->ticks);
    wd->last = now_s();
    while (!atomic_load(&wd->stop)) {
        pb_wd_frame_t f;
        int from_parent = 0;
        int sigfd = wd->sigs ? pb_wd_signals_fd(wd->sigs) : -1;
        int r = pb_wd_tree_next(wd->tree, sigfd, PB_WD_PERIOD_MS, &f, &from_parent);
        double t = now_s();
        uint_fast64_t ticks = atomic_load_explicit(&wd->ticks, memory_order_relaxed);
        if (ticks != wd->seen) {
            wd->seen = ticks;
            wd->last = t;
        }
        if (r == 2)
            pb_wd_signals_read(wd->sigs, wd->rank);
        else if (r == 1)
            on_frame(wd, &f, from_parent, t - wd->last);
        if (wd->fired_at > 0.0) {
            /* reported upward; rank 0 should have ended the job by now */
            if (t - wd->fired_at > PB_WD_GRACE_S)
                abort_job(wd);
            continue;
        }
        pthread_mutex_lock(&wd->mu);
        int armed = wd->armed;
        double timeout = wd->timeout;
        pthread_mutex_unlock(&wd->mu);
        if (armed && timeout > 0.0 && t - wd->last > timeout)
            fire(wd, t - wd->last);
    }
    return NULL;
}

int pb_watchdog_start(pb_watchdog_t **out, pb_ctl_t *world, double timeout_s,
                      pb_wd_signals_t *sigs, pb_err_t *err)
{
    *out = NULL;
    pb_watchdog_t *wd = calloc(1, sizeof *wd);
    if (wd == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the watchdog");
    wd->rank = world->rank;
    wd->size = world->size;
    wd->timeout = timeout_s;
    wd->sigs = sigs;
    atomic_init(&wd->ticks, 0);
    atomic_init(&wd->stop, 0);
    if (sigs != NULL && wd->rank == 0)
        pb_wd_signals_speak(sigs);
    /* collective: every rank builds its part of the channel */
    char why[256] = "";
    if (wd->size > 1) {
        pb_wd_tree_open(&wd->tree, world, why, sizeof why);
        if (wd->tree == NULL && why[0])
            fprintf(stderr,
                    "parbench: rank %d: watchdog: no channel between the watchdogs (%s): a hang "
                    "is reported by each rank about itself only\n",
                    wd->rank, why);
    }
    int rc = pthread_mutex_init(&wd->mu, NULL);
    if (rc == 0) {
        rc = pthread_create(&wd->thread, NULL, loop, wd);
        if (rc != 0)
            pthread_mutex_destroy(&wd->mu);
    }
    if (rc != 0) {
        pb_wd_tree_close(wd->tree);
        free(wd);
        return pb_err_set(err, PB_ERUNTIME, "cannot start the watchdog thread: %s",
                          strerror(rc));
    }
    *out = wd;
    return PB_OK;
}

void pb_watchdog_set_timeout(pb_watchdog_t *wd, double timeout_s)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->mu);
    wd->timeout = timeout_s;
    pthread_mutex_unlock(&wd->mu);
}

void pb_watchdog_stop(pb_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    atomic_store(&wd->stop, 1);
    pthread_join(wd->thread, NULL);
    pthread_mutex_destroy(&wd->mu);
    pb_wd_tree_close(wd->tree);
    free(wd);
}

#include "pb_watchdog.h"

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

enum { TAG_REPORT = 1, TAG_QUERY = 2, TAG_STATE = 3 };
enum { DOING = 192, LISTED = 16 };
/* the thread wakes this often: signal latency, stop latency, resolution */
#define PB_WD_PERIOD_NS 100000000L
/* rank 0 waits this long for answers; other ranks this long for rank 0 */
#define PB_WD_SURVEY_S 5.0
#define PB_WD_GRACE_S 15.0

/* What a rank says about itself: sent as bytes between watchdogs (the same
 * binary on every rank, so the same layout). */
typedef struct wd_state {
    uint64_t step; /* steps begun */
    int32_t armed;
    int32_t rank;
    double idle_s; /* seconds since the last progress (or since disarmed) */
    char doing[DOING];
} wd_state_t;

struct pb_watchdog {
    MPI_Comm comm;
    int rank, size, multiple;
    double timeout; /* under mu */
    pthread_t thread;
    pthread_mutex_t mu;
    /* under mu */
    char doing[DOING];
    char base[DOING]; /* the last step begun by pb_watch_begin */
    uint64_t step;
    int armed;
    /* lock-free: the main thread's hot path only increments ticks */
    atomic_uint_fast64_t ticks;
    atomic_int stop;
    atomic_int signo;
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
    snprintf(wd->doing, sizeof wd->doing, "%.40s after %.*s", what, DOING - 48,
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
    return wd ? atomic_load((atomic_int *)&wd->signo) : 0;
}

void pb_watchdog_hang_forever(void)
{
    for (;;)
        sleep(3600);
}

static void snapshot(pb_watchdog_t *wd, double idle, wd_state_t *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&wd->mu);
    s->step = wd->step;
    s->armed = wd->armed;
    memcpy(s->doing, wd->doing, sizeof s->doing);
    pthread_mutex_unlock(&wd->mu);
    s->rank = wd->rank;
    s->idle_s = idle;
}

/* Answers every pending question from rank 0's survey. */
static void answer_queries(pb_watchdog_t *wd, double idle)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Iprobe(0, TAG_QUERY, wd->comm, &flag, &st) != MPI_SUCCESS || !flag)
            return;
        char dummy;
        if (MPI_Recv(&dummy, 1, MPI_CHAR, 0, TAG_QUERY, wd->comm, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            return;
        wd_state_t s;
        snapshot(wd, idle, &s);
        MPI_Send(&s, (int)sizeof s, MPI_BYTE, 0, TAG_STATE, wd->comm);
    }
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

/* Rank 0: ask every rank where it is, then name the ranks that are not in
 * the step the others wait in, and those that cannot answer. */
static void survey(pb_watchdog_t *wd, double idle)
{
    int n = wd->size;
    wd_state_t *all = calloc((size_t)n, sizeof *all);
    char *got = calloc((size_t)n, 1);
    int *list = calloc((size_t)n, sizeof *list);
    if (all == NULL || got == NULL || list == NULL) {
        fprintf(stderr, "parbench: watchdog: out of memory for the survey of %d ranks\n", n);
        goto out;
    }
    snapshot(wd, idle, &all[0]);
    got[0] = 1;
    char dummy = 0;
    for (int r = 1; r < n; r++)
        MPI_Send(&dummy, 1, MPI_CHAR, r, TAG_QUERY, wd->comm);
    int answered = 1;
    double until = now_s() + PB_WD_SURVEY_S;
    while (answered < n && now_s() < until) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_STATE, wd->comm, &flag, &st) != MPI_SUCCESS)
            break;
        if (!flag) {
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        wd_state_t s;
        MPI_Recv(&s, (int)sizeof s, MPI_BYTE, st.MPI_SOURCE, TAG_STATE, wd->comm,
                 MPI_STATUS_IGNORE);
        if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < n && !got[st.MPI_SOURCE]) {
            all[st.MPI_SOURCE] = s;
            all[st.MPI_SOURCE].doing[DOING - 1] = '\0';
            got[st.MPI_SOURCE] = 1;
            answered++;
        }
    }
    /* the step the job is stuck in: the latest one any armed rank is in */
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
    int nmiss = 0;
    for (int r = 0; r < n; r++)
        if (got[r] && !(all[r].armed && all[r].step == k))
            list[nmiss++] = r;
    char ranks[256];
    list_ranks(ranks, sizeof ranks, list, nmiss);
    fprintf(stderr,
            "parbench: watchdog: %d of %d ranks wait in step #%llu (%s); not arrived: %s%s\n",
            waiting, n, (unsigned long long)k, all[kr].doing,
            nmiss == 0 ? "" : nmiss == 1 ? "rank " : "ranks ",
            nmiss ? ranks : "none (all ranks are in it: a hang inside the step)");
    for (int i = 0; i < nmiss && i < LISTED; i++) {
        const wd_state_t *s = &all[list[i]];
        fprintf(stderr, "parbench: watchdog:   rank %d is %s step #%llu (%s), %.1f s %s\n",
                list[i], s->armed ? "in" : "past", (unsigned long long)s->step,
                s->doing[0] ? s->doing : "none yet", s->idle_s,
                s->armed ? "without progress" : "since it ended (not waiting on anyone)");
    }
    int nsilent = 0;
    for (int r = 0; r < n; r++)
        if (!got[r])
            list[nsilent++] = r;
    if (nsilent) {
        list_ranks(ranks, sizeof ranks, list, nsilent);
        fprintf(stderr,
                "parbench: watchdog: no answer within %.0f s from rank%s %s (process stopped, dead, or its node unreachable)\n",
                PB_WD_SURVEY_S, nsilent > 1 ? "s" : "", ranks);
    }
out:
    fflush(stderr);
    free(all);
    free(got);
    free(list);
}

static _Noreturn void fire(pb_watchdog_t *wd, double idle)
{
    wd_state_t s;
    snapshot(wd, idle, &s);
    fprintf(stderr, "parbench: watchdog: rank %d stuck for %.1f s in step #%llu: %s\n", wd->rank,
            idle, (unsigned long long)s.step, s.doing);
    fflush(stderr);
    if (wd->multiple && wd->size > 1) {
        if (wd->rank == 0) {
            survey(wd, idle);
        } else {
            MPI_Send(&s, (int)sizeof s, MPI_BYTE, 0, TAG_REPORT, wd->comm);
            /* rank 0 surveys and aborts the job; keep answering it, and
             * abort alone only if rank 0's watchdog cannot */
            double until = now_s() + PB_WD_GRACE_S;
            while (now_s() < until) {
                answer_queries(wd, idle + (now_s() - (until - PB_WD_GRACE_S)));
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
            }
        }
    }
    MPI_Abort(wd->comm, PB_ERUNTIME);
    _exit(PB_ERUNTIME);
}

static void on_signal(pb_watchdog_t *wd, int sig)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&wd->signo, &expected, sig)) {
        if (wd->rank == 0)
            fprintf(stderr,
                    "parbench: %s: stopping after the current measurement (again to stop now)\n",
                    sig == SIGINT ? "SIGINT" : "SIGTERM");
        return;
    }
    /* the second signal: rows already written are whole (one write each) */
    fprintf(stderr, "parbench: rank %d: %s again: stopping now\n", wd->rank,
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    _exit(128 + sig);
}

static void *loop(void *arg)
{
    pb_watchdog_t *wd = arg;
    sigset_t set;
    signal_set(&set);
    uint_fast64_t seen = atomic_load(&wd->ticks);
    double last = now_s();
    while (!atomic_load(&wd->stop)) {
        struct timespec period = {0, PB_WD_PERIOD_NS};
        int sig = sigtimedwait(&set, NULL, &period);
        if (sig == SIGINT || sig == SIGTERM)
            on_signal(wd, sig);
        double t = now_s();
        uint_fast64_t ticks = atomic_load_explicit(&wd->ticks, memory_order_relaxed);
        if (ticks != seen) {
            seen = ticks;
            last = t;
        }
        if (wd->multiple && wd->size > 1) {
            answer_queries(wd, t - last);
            if (wd->rank == 0) {
                int flag = 0;
                MPI_Status st;
                if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, wd->comm, &flag, &st) ==
                        MPI_SUCCESS && flag) {
                    /* another rank's watchdog fired: survey and end the job */
                    survey(wd, t - last);
                    MPI_Abort(wd->comm, PB_ERUNTIME);
                    _exit(PB_ERUNTIME);
                }
            }
        }
        pthread_mutex_lock(&wd->mu);
        int armed = wd->armed;
        double timeout = wd->timeout;
        pthread_mutex_unlock(&wd->mu);
        if (armed && timeout > 0.0 && t - last > timeout)
            fire(wd, t - last);
    }
    return NULL;
}

int pb_watchdog_start(pb_watchdog_t **out, MPI_Comm world, double timeout_s, int multiple,
                      pb_err_t *err)
{
    *out = NULL;
    pb_watchdog_t *wd = calloc(1, sizeof *wd);
    if (wd == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the watchdog");
    if (MPI_Comm_dup(world, &wd->comm) != MPI_SUCCESS) {
        free(wd);
        return pb_err_set(err, PB_ERUNTIME, "MPI_Comm_dup for the watchdog failed");
    }
    MPI_Comm_set_errhandler(wd->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(wd->comm, &wd->rank);
    MPI_Comm_size(wd->comm, &wd->size);
    wd->timeout = timeout_s;
    wd->multiple = multiple;
    atomic_init(&wd->ticks, 0);
    atomic_init(&wd->stop, 0);
    atomic_init(&wd->signo, 0);
    int rc = pthread_mutex_init(&wd->mu, NULL);
    if (rc == 0) {
        rc = pthread_create(&wd->thread, NULL, loop, wd);
        if (rc != 0)
            pthread_mutex_destroy(&wd->mu);
    }
    if (rc != 0) {
        MPI_Comm_free(&wd->comm);
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
    MPI_Comm_free(&wd->comm);
    free(wd);
}

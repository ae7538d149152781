/* test_wd_signals.c - issue 49 item 18: under --gpus N the ranks are
 * threads of one process, each with its watchdog, and a signal sent to the
 * process is delivered once.  Two ranks over the threads world
 * (collectives/pb_ctl.h), as pb_app_run_threads starts them, with the
 * process's one signal record (bench/run/pb_wd_signals.h):
 *
 *   - one SIGINT is seen by both ranks (pb_watchdog_signal), not consumed
 *     by whichever watchdog read it;
 *   - a second SIGINT ends the process with 128 + 2 = 130 (signal(7):
 *     SIGINT is 2), whichever watchdog reads it, because the count is the
 *     process's; run in a child process, which it ends.
 *
 * Nothing waits on time for a result: each wait polls for its condition,
 * with a 30 s limit only so that a broken build fails instead of
 * hanging. */
#include "bench/run/pb_watchdog.h"
#include "bench/run/pb_wd_signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pb_test.h"

#define NRANKS 2
#define LIMIT_MS 30000

typedef struct rank_arg {
    pb_ctl_shared_t *sh;
    pb_wd_signals_t *sigs;
    int rank;
    pb_ctl_t *world;
    pb_watchdog_t *wd;
} rank_arg_t;

/* One rank's start, as pb_app_rank does it: its control handle, then its
 * watchdog (collective: both build the watchdogs' channel). */
static void *start_rank(void *p)
{
    rank_arg_t *a = p;
    pb_err_t err;
    pb_err_clear(&err);
    a->world = pb_ctl_threads_join(a->sh, a->rank);
    if (a->world != NULL && pb_watchdog_start(&a->wd, a->world, 0.0, a->sigs, &err) != PB_OK)
        fprintf(stderr, "rank %d: %s\n", a->rank, err.msg);
    return NULL;
}

/* Both ranks started with their watchdogs running; 0 when any failed. */
static int start_ranks(rank_arg_t *ra, pb_wd_signals_t *sigs)
{
    pb_ctl_shared_t *sh = pb_ctl_threads_new(NRANKS);
    if (sh == NULL)
        return 0;
    pthread_t th[NRANKS];
    int made = 0;
    for (int r = 0; r < NRANKS; r++)
        ra[r] = (rank_arg_t){sh, sigs, r, NULL, NULL};
    while (made < NRANKS && pthread_create(&th[made], NULL, start_rank, &ra[made]) == 0)
        made++;
    if (made < NRANKS) {
        fprintf(stderr, "cannot start the rank threads\n");
        _exit(1); /* a started rank waits for the others forever */
    }
    for (int r = 0; r < NRANKS; r++)
        pthread_join(th[r], NULL);
    return ra[0].wd != NULL && ra[1].wd != NULL;
}

static void stop_ranks(rank_arg_t *ra)
{
    for (int r = 0; r < NRANKS; r++) {
        pb_watchdog_stop(ra[r].wd);
        pb_ctl_free(ra[r].world);
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Polls until some rank has seen a signal; 0 if none did within the limit. */
static int wait_any(const rank_arg_t *ra)
{
    for (int ms = 0; ms < LIMIT_MS; ms++) {
        for (int r = 0; r < NRANKS; r++)
            if (pb_watchdog_signal(ra[r].wd) != 0)
                return 1;
        sleep_ms(1);
    }
    return 0;
}

/* The first SIGINT, for every rank: once one watchdog has read it, every
 * rank answers SIGINT at once (with a watchdog's own signalfd each, the
 * others would answer 0 for good: the signal was read). */
static void test_first_for_all(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_wd_signals_t *sigs = NULL;
    CHECK(pb_wd_signals_open(&sigs, &err) == PB_OK);
    rank_arg_t ra[NRANKS];
    int ok = sigs != NULL && start_ranks(ra, sigs);
    CHECK(ok);
    if (!ok)
        return;
    CHECK(pb_watchdog_signal(ra[0].wd) == 0 && pb_watchdog_signal(ra[1].wd) == 0);
    CHECK(kill(getpid(), SIGINT) == 0);
    CHECK(wait_any(ra));
    for (int r = 0; r < NRANKS; r++) {
        int got = pb_watchdog_signal(ra[r].wd);
        if (got != SIGINT) {
            fprintf(stderr, "rank %d saw signal %d, want SIGINT (%d)\n", r, got, SIGINT);
            CHECK(0);
        }
    }
    stop_ranks(ra);
    pb_wd_signals_close(sigs);
}

/* The child: two ranks, a SIGINT seen by both, then a second SIGINT that
 * must end it with 130; it exits 0 when it survives, 1 when set-up or the
 * first signal failed. */
static _Noreturn void second_signal_child(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_wd_signals_t *sigs = NULL;
    rank_arg_t ra[NRANKS];
    if (pb_wd_signals_open(&sigs, &err) != PB_OK || !start_ranks(ra, sigs))
        _exit(1);
    if (kill(getpid(), SIGINT) != 0 || !wait_any(ra) || pb_watchdog_signal(ra[0].wd) != SIGINT ||
        pb_watchdog_signal(ra[1].wd) != SIGINT)
        _exit(1);
    if (kill(getpid(), SIGINT) != 0)
        _exit(1);
    sleep_ms(LIMIT_MS); /* the second signal ends this before */
    _exit(0);
}

static void test_second_ends(void)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        second_signal_child();
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 130) {
        fprintf(stderr, "the child %s %d, want exit 130\n", WIFEXITED(st) ? "exited" : "died of",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        CHECK(0);
    }
}

int main(void)
{
    /* as pb_app_run_threads: blocked before the first thread, so every
     * thread inherits it and only the signalfd takes the signals */
    pb_watchdog_block_signals();
    test_second_ends(); /* forks: before this process has threads */
    test_first_for_all();
    PB_TEST_END("wd_signals");
}
